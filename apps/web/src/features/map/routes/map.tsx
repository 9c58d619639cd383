import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { Building, Floor, MapPoint, Robot } from '@uvd/contracts';
import { PageTitle } from '../../../components/page-title.tsx';
import { Skeleton } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { LOCAL_KEYS, readUserChoice, saveUserChoice } from '../../../lib/storage.ts';
import { useLiveRobotList } from '../../../lib/robot-list.ts';
import { robotOffline } from '../../../lib/robot-presence.ts';
import { robotStatusLabel } from '../../../lib/robot-status.ts';
import { useBuildings, useFloorMapImage, useFloorMapMetadata, useFloors } from '../../../lib/site-queries.ts';
import { useTrajectoryJob } from '../api/map-queries.ts';
import { FloorMap } from '../components/floor-map.tsx';
import { RobotPlace } from '../components/robot-place.tsx';
import { JobOnMap } from '../components/job-on-map.tsx';

/**
 * The choice shown: what the user picked on this visit, else what the link points at (job or robot), else the
 * remembered choice, else the only option there is.
 */
const choose = <T,>(items: readonly T[] | undefined, idOf: (item: T) => string, ...candidates: (string | null | undefined)[]) => {
  if (!items) return null;
  for (const candidate of candidates) if (candidate && items.some((item) => idOf(item) === candidate)) return candidate;
  const [only] = items;
  return items.length === 1 && only !== undefined ? idOf(only) : null;
};

/** Behaviour §2 /map: building and floor selectors, the floor plan with rooms, robots and a job's trajectory. */
export const MapRoute = () => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const [search] = useSearchParams();
  const jobParam = search.get('job');
  const robotParam = search.get('robot');
  const showTrajectory = search.get('show_trajectory') === 'true';
  const trajectoryJobId = showTrajectory && jobParam ? jobParam : null;
  const buildingSelectId = useId();
  const floorSelectId = useId();

  const [pickedBuilding, setPickedBuilding] = useState<string | null>(null);
  const [pickedFloor, setPickedFloor] = useState<string | null>(null);

  const buildings = useBuildings();
  // Where the robots are, moved by the robot stream's pose updates while the map is open (behaviour §4).
  const robots = useLiveRobotList();
  const job = useTrajectoryJob(trajectoryJobId);

  const linkedRobot: Robot | undefined = robotParam ? robots.data?.payload.find((robot) => robot.robot_id === robotParam) : undefined;
  const trajectoryPoints = job.data?.trajectory ?? [];
  // Without a recorded path, the job's robot tells where to look.
  const jobRobot = job.data ? robots.data?.payload.find((candidate) => candidate.robot_id === job.data.robot_id) : undefined;
  const jobFloorId = trajectoryPoints[0]?.floor_id ?? jobRobot?.floor_id ?? null;
  // A job's trajectory names its floor only; the list of every floor tells which building holds it.
  const allFloors = useFloors(null, jobFloorId !== null);
  const jobBuildingId = jobFloorId ? (allFloors.data?.find((floor) => floor.floor_id === jobFloorId)?.building_id ?? null) : null;
  const targetFloor = jobFloorId ?? linkedRobot?.floor_id ?? null;
  const targetBuilding = jobBuildingId ?? linkedRobot?.building_id ?? null;

  const buildingList: Building[] | undefined = buildings.data;
  const buildingId = choose(
    buildingList,
    (building) => building.building_id,
    pickedBuilding,
    targetBuilding,
    readUserChoice(LOCAL_KEYS.selectedBuilding, user.sub),
  );
  const floors = useFloors(buildingId, buildingId !== null);
  const floorList: Floor[] | undefined = buildingId ? floors.data : undefined;
  const floorId = choose(
    floorList,
    (floor) => floor.floor_id,
    pickedFloor,
    targetFloor,
    readUserChoice(LOCAL_KEYS.selectedMap, user.sub),
  );
  const floor = floorList?.find((candidate) => candidate.floor_id === floorId);

  const image = useFloorMapImage(floorId);
  const metadata = useFloorMapMetadata(floorId);
  const robotsHere = floorId ? (robots.data?.payload ?? []).filter((robot) => robot.floor_id === floorId && robot.pose !== null) : [];
  const trajectory: MapPoint[] | null =
    trajectoryJobId && floorId ? trajectoryPoints.filter((point) => point.floor_id === floorId) : null;

  const pickBuilding = (id: string) => {
    setPickedBuilding(id);
    setPickedFloor(null);
    saveUserChoice(LOCAL_KEYS.selectedBuilding, user.sub, id);
  };
  const pickFloor = (id: string) => {
    setPickedFloor(id);
    saveUserChoice(LOCAL_KEYS.selectedMap, user.sub, id);
  };

  const mapFailed = buildings.isError || floors.isError || image.isError || metadata.isError;
  const mapLoading = floorId !== null && (image.isPending || metadata.isPending);

  return (
    <>
      <PageTitle title={t('nav.map')} />
      <div className="row g-2 mb-3">
        <div className="col-12 col-md-6">
          <label className="form-label" htmlFor={buildingSelectId}>
            {t('map.building')}
          </label>
          <select
            id={buildingSelectId}
            className="form-select"
            value={buildingId ?? ''}
            disabled={!buildingList}
            onChange={(event) => {
              if (event.target.value) pickBuilding(event.target.value);
            }}
          >
            <option value="">{t('map.chooseBuilding')}</option>
            {buildingList?.map((building) => (
              <option key={building.building_id} value={building.building_id}>
                {building.building_name}
              </option>
            ))}
          </select>
        </div>
        <div className="col-12 col-md-6">
          <label className="form-label" htmlFor={floorSelectId}>
            {t('map.floor')}
          </label>
          <select
            id={floorSelectId}
            className="form-select"
            value={floorId ?? ''}
            disabled={!floorList}
            onChange={(event) => {
              if (event.target.value) pickFloor(event.target.value);
            }}
          >
            <option value="">{t('map.chooseFloor')}</option>
            {floorList?.map((candidate) => (
              <option key={candidate.floor_id} value={candidate.floor_id}>
                {candidate.floor_name}
              </option>
            ))}
          </select>
        </div>
      </div>

      {robotParam && robots.isSuccess && !linkedRobot?.floor_id ? (
        <div className="alert alert-info" role="status">
          {t('map.noRobotSelected')}
        </div>
      ) : null}
      {job.isError ? (
        <div className="alert alert-warning" role="alert">
          {t('map.trajectoryFailed')}
        </div>
      ) : null}

      {jobParam ? <JobOnMap jobId={jobParam} robot={linkedRobot} /> : null}

      {mapFailed ? (
        <div className="alert alert-danger" role="alert">
          {t('map.loadFailed')}
        </div>
      ) : buildings.isPending ? (
        <Skeleton lines={4} />
      ) : floorId === null ? (
        <p className="text-body-secondary">{t('map.selectFloor')}</p>
      ) : mapLoading || !image.data || !metadata.data ? (
        <div className="floor-plan d-flex align-items-center justify-content-center border rounded">
          <Spinner />
        </div>
      ) : (
        <>
          <FloorMap
            floorName={floor?.floor_name ?? ''}
            svg={image.data}
            metadata={metadata.data}
            robots={robotsHere}
            highlightedRobotId={robotParam}
            trajectory={trajectory}
          />
          <section className="mt-3" aria-labelledby="map-robots-heading">
            <h2 className="h6" id="map-robots-heading">
              {t('map.robotsOnFloor')}
            </h2>
            {robotsHere.length === 0 ? (
              <p className="text-body-secondary">{t('map.noRobotsOnFloor')}</p>
            ) : (
              <ul className="list-unstyled mb-0" data-testid="map-robot-list">
                {robotsHere.map((robot) => (
                  <li key={robot.robot_id} className={robot.robot_id === robotParam ? 'fw-bold' : undefined}>
                    <RobotPlace robot={robot} rooms={metadata.data.rooms} />
                    {robotOffline(robot) ? ` (${t('robotModes.0')})` : ''}
                    {robot.robot_id === robotParam ? ` (${t('map.selectedRobot')})` : ''}
                    {/* An offline robot's last status is not what it does now. */}
                    {robotOffline(robot) ? '' : ` · ${robotStatusLabel(t, robot.status)}`}
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </>
  );
};
