import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeliveryDetail, DeliveryPlace, MapFrame } from '@uvd/contracts';
import { FloorPlan, markerUnit, toPixels } from '../../../components/floor-plan/floor-plan.tsx';
import { FloorButtons, FloorPlanInset } from '../../../components/floor-plan/floor-plan-inset.tsx';
import { RobotMarker } from '../../../components/floor-plan/robot-marker.tsx';
import { useRobotStream } from '../../../lib/live/use-robot-stream.ts';
import { robotListKey, useRobotList } from '../../../lib/robot-list.ts';
import { useFloors } from '../../../lib/site-queries.ts';

type Stop = 'pickup' | 'dropoff';
const STOPS: readonly Stop[] = ['pickup', 'dropoff'];

/**
 * The delivery's route on the floor plan: the pickup (P) and the drop-off (D) from `route`, and its robot where
 * it is now, moved by the robot stream. A route over two floors offers each floor; the robot's floor is shown first.
 */
export const DeliveryRouteMap = ({ delivery }: { delivery: DeliveryDetail }) => {
  const { t } = useTranslation();
  const robots = useRobotList();
  useRobotStream(robotListKey, delivery.robot_id ? [delivery.robot_id] : []);
  const robot = robots.data?.payload.find((candidate) => candidate.robot_id === delivery.robot_id);
  const stops = delivery.route.slice(0, 2);
  const floorIds = [...new Set(stops.flatMap((place) => (place.floor_id ? [place.floor_id] : [])))];
  const [picked, setPicked] = useState<string | null>(null);
  const robotFloor = robot?.floor_id && floorIds.includes(robot.floor_id) ? robot.floor_id : null;
  const floorId = picked ?? robotFloor ?? floorIds[0] ?? null;
  const floors = useFloors(null, floorIds.length > 0);
  const nameOf = (id: string) => floors.data?.find((floor) => floor.floor_id === id)?.floor_name ?? t('map.floor');

  if (floorId === null) return <p className="text-body-secondary">{t('deliveries.noRoute')}</p>;
  return (
    <section className="mb-4" aria-labelledby="delivery-route-heading">
      <h2 className="h5" id="delivery-route-heading">
        {t('deliveries.routeOnMap')}
      </h2>
      <FloorButtons floorIds={floorIds} floorId={floorId} nameOf={nameOf} label={t('deliveries.routeFloors')} onPick={setPicked} />
      <FloorPlanInset floorId={floorId}>
        {({ svg, frame }) => (
          <FloorPlan
            floorName={nameOf(floorId)}
            svg={svg}
            frame={frame}
            overlayLabel={t('deliveries.routeOverlay', { from: delivery.pickup.name, to: delivery.dropoff.name })}
            testId="delivery-route-map"
            className="floor-plan-inset"
          >
            {stops.map((place, index) => {
              const stop = STOPS[index];
              return stop && place.floor_id === floorId ? <StopMarker key={stop} frame={frame} place={place} stop={stop} /> : null;
            })}
            {robot && robot.floor_id === floorId ? <RobotMarker frame={frame} robot={robot} highlighted /> : null}
          </FloorPlan>
        )}
      </FloorPlanInset>
      <ul className="list-unstyled small mt-2 mb-0">
        <li>
          <span aria-hidden="true" className="fw-bold">
            P{' '}
          </span>
          {t('deliveries.pickupAt', { room: delivery.pickup.name })}
        </li>
        <li>
          <span aria-hidden="true" className="fw-bold">
            D{' '}
          </span>
          {t('deliveries.dropoffAt', { room: delivery.dropoff.name })}
        </li>
        {delivery.robot_name ? <li>{robot?.pose ? t('deliveries.robotOnMap', { robot: delivery.robot_name }) : t('deliveries.robotNotOnMap', { robot: delivery.robot_name })}</li> : null}
      </ul>
    </section>
  );
};

/** A stop of the route: a lettered disc (P pickup, D drop-off). */
const StopMarker = ({ frame, place, stop }: { frame: MapFrame; place: DeliveryPlace; stop: Stop }) => {
  const unit = markerUnit(frame);
  const at = toPixels(frame, place);
  const tone = stop === 'pickup' ? '#0d6efd' : '#6f42c1';
  return (
    <g data-testid={`route-${stop}`} data-x={at.x} data-y={at.y} aria-hidden="true">
      <circle cx={at.x} cy={at.y} r={unit * 1.6} fill={tone} stroke="#fff" strokeWidth={unit / 4} />
      <text x={at.x} y={at.y + unit * 0.6} fontSize={unit * 1.8} fill="#fff" textAnchor="middle" fontWeight="bold">
        {stop === 'pickup' ? 'P' : 'D'}
      </text>
    </g>
  );
};
