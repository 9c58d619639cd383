import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MapFrame, TrajectoryPoint } from '@uvd/contracts';
import { FloorPlan, TrajectoryLine, markerUnit, toPixels } from '../../../components/floor-plan/floor-plan.tsx';
import { FloorButtons, FloorPlanInset } from '../../../components/floor-plan/floor-plan-inset.tsx';
import './log-plan.css';
import { useFloors } from '../../../lib/site-queries.ts';

/** The floors a path crosses, in the order the robot first reached them. */
const floorsOf = (points: readonly TrajectoryPoint[]): string[] => [...new Set(points.map((point) => point.floor_id))];

/**
 * Behaviour §2 "a trajectory map when has_trajectory": the robot's recorded path on its floor's plan, the plan
 * zoomable as on the map screen. A path that took the lift offers each floor it crossed, where it started first.
 * Loaded on demand (log-detail.tsx): the plan and its zoom are not part of the logs list until a row shows one.
 */
export const TrajectoryMap = ({ points }: { points: readonly TrajectoryPoint[] }) => {
  const { t } = useTranslation();
  const floorIds = floorsOf(points);
  const [picked, setPicked] = useState<string | null>(null);
  const floorId = picked ?? floorIds[0] ?? null;
  // Every floor the user may see, for their names; one cached list shared with the map screen.
  const floors = useFloors(null);
  const nameOf = (id: string) => floors.data?.find((floor) => floor.floor_id === id)?.floor_name ?? '';
  const here = points.filter((point) => point.floor_id === floorId);

  return (
    <section className="mb-2" aria-labelledby="log-trajectory-heading">
      <h2 className="h6" id="log-trajectory-heading">
        {t('logDetail.trajectory')}
      </h2>
      <FloorButtons floorIds={floorIds} floorId={floorId} nameOf={(id) => nameOf(id) || t('map.floor')} label={t('logDetail.trajectoryFloors')} onPick={setPicked} />
      <FloorPlanInset floorId={floorId}>
        {({ svg, frame }) => (
          <FloorPlan
            floorName={nameOf(frame.floor_id)}
            svg={svg}
            frame={frame}
            overlayLabel={t('logDetail.trajectory')}
            testId="log-trajectory-map"
            className="floor-plan-inset log-plan"
          >
            <TrajectoryLine frame={frame} points={here} />
            <PathEnds frame={frame} points={here} />
          </FloorPlan>
        )}
      </FloorPlanInset>
    </section>
  );
};

/** Where the path on this floor begins (a ring) and ends (a dot). */
export const PathEnds = ({ frame, points }: { frame: MapFrame; points: readonly TrajectoryPoint[] }) => {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return null;
  const unit = markerUnit(frame);
  const [start, end] = [toPixels(frame, first), toPixels(frame, last)];
  return (
    <g aria-hidden="true">
      <circle cx={start.x} cy={start.y} r={unit} fill="#fff" stroke="#dc3545" strokeWidth={unit / 3} />
      <circle cx={end.x} cy={end.y} r={unit} fill="#dc3545" />
    </g>
  );
};
