import type { LogDose, MapFrame, RoomDose, TrajectoryPoint } from '@uvd/contracts';
import { useTranslation } from 'react-i18next';
import { FloorPlan, TrajectoryLine, pointsAttribute, toPixels } from '../../../components/floor-plan/floor-plan.tsx';
import { FloorPlanInset } from '../../../components/floor-plan/floor-plan-inset.tsx';
import './log-plan.css';
import { useFloors } from '../../../lib/site-queries.ts';
import { doseRuns, formatJPerM2, formatMjPerCm2, legendOf } from './dose-scale.ts';
import type { DoseScale } from './dose-scale.ts';
import { PathEnds } from './trajectory-map.tsx';

/** The floors of the log, each once: its rooms' floors in the job's order, then any other floor the path crossed. */
export const floorsOfDose = (dose: LogDose, trajectory: readonly TrajectoryPoint[]): string[] => [
  ...new Set([
    ...[...dose.rooms].sort((a, b) => a.order - b.order).flatMap((room) => (room.floor_id === null ? [] : [room.floor_id])),
    ...trajectory.map((point) => point.floor_id),
  ]),
];

/** The legend: every class of the scale in J/m² and, beside it, mJ/cm²; the planned dose is the scale's middle. */
export const DoseLegend = ({ scale }: { scale: DoseScale }) => {
  const { t } = useTranslation();
  const range = (from: number, to: number | null, format: (value: number) => string) =>
    to === null ? t('dose.atLeast', { value: format(from) }) : t('dose.range', { from: format(from), to: format(to) });
  return (
    <figure className="mb-2" aria-labelledby="dose-legend-caption">
      <figcaption id="dose-legend-caption" className="small mb-1">
        {t('dose.legend', {
          planned: scale.planned.map(formatJPerM2).join(', ') || '–',
          plannedMj: scale.planned.map(formatMjPerCm2).join(', ') || '–',
        })}
      </figcaption>
      <ul className="dose-legend list-unstyled small mb-0" data-testid="dose-legend">
        {legendOf(scale).map((entry) => (
          <li key={entry.colour} className="d-flex align-items-center gap-1">
            <span className="dose-swatch border" style={{ backgroundColor: entry.colour }} aria-hidden="true" />
            <span>
              {range(entry.from, entry.to, formatJPerM2)} {t('dose.jPerM2')}
              <span className="text-body-secondary">
                {' · '}
                {range(entry.from, entry.to, formatMjPerCm2)} {t('dose.mjPerCm2')}
              </span>
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
};

/** One room's dose field as coloured runs, outlined by its polygon. */
const RoomField = ({ room, frame, scale }: { room: RoomDose; frame: MapFrame; scale: DoseScale }) => {
  const cellPixels = (room.grid?.cell_m ?? 0) / frame.resolution;
  return (
    <g data-testid="dose-room" data-room={room.room_name}>
      {room.grid
        ? doseRuns(room.grid, scale).map((run) => {
            // The run's top-left corner on the plan: its upper edge is y + height in the map frame (y grows upwards).
            const corner = toPixels(frame, { x: run.x, y: run.y + run.height });
            return (
              <rect
                key={`${String(run.x)},${String(run.y)}`}
                x={corner.x}
                y={corner.y}
                width={run.width / frame.resolution}
                height={cellPixels}
                fill={run.colour}
                shapeRendering="crispEdges"
                data-testid="dose-cell"
              />
            );
          })
        : null}
      {room.polygon.length > 2 ? (
        <polygon points={pointsAttribute(frame, room.polygon)} fill="none" stroke="#212529" strokeWidth={Math.max(frame.width, frame.height) / 600} />
      ) : null}
    </g>
  );
};

interface FloorDoseMapProps {
  floorId: string;
  floorName: string;
  rooms: readonly RoomDose[];
  trajectory: readonly TrajectoryPoint[];
  scale: DoseScale;
}

/** One floor's plan with its rooms' dose fields and, over them, the path the robot drove there. */
const FloorDoseMap = ({ floorId, floorName, rooms, trajectory, scale }: FloorDoseMapProps) => {
  const { t } = useTranslation();
  const headingId = `dose-map-${floorId}`;
  return (
    <section className="mb-3" aria-labelledby={headingId} data-testid="dose-floor">
      <h3 className="h6 small fw-bold" id={headingId}>
        {t('dose.floorMap', { floor: floorName || t('map.floor') })}
      </h3>
      <FloorPlanInset floorId={floorId}>
        {({ svg, frame }) => (
          <FloorPlan
            floorName={floorName}
            svg={svg}
            frame={frame}
            overlayLabel={t('dose.overlay', { floor: floorName, rooms: rooms.map((room) => room.room_name).join(', ') })}
            testId="log-dose-map"
            className="floor-plan-inset log-plan"
          >
            {/* The values are in the room results table; the drawing repeats them for the eye only. */}
            <g aria-hidden="true" opacity={0.8}>
              {rooms.map((room) => (
                <RoomField key={`${String(room.order)}-${room.room_id}`} room={room} frame={frame} scale={scale} />
              ))}
            </g>
            <TrajectoryLine frame={frame} points={trajectory} />
            <PathEnds frame={frame} points={trajectory} />
          </FloorPlan>
        )}
      </FloorPlanInset>
    </section>
  );
};

/**
 * The dose map of a log (issue #24): each floor's plan with every room's dose field on one colour scale, and the
 * robot's path over it; one map per floor, in the order the job reached them. Loaded on demand (log-detail.tsx).
 */
export const DoseMaps = ({ dose, trajectory, scale }: { dose: LogDose; trajectory: readonly TrajectoryPoint[]; scale: DoseScale }) => {
  const { t } = useTranslation();
  const floors = useFloors(null);
  const nameOf = (id: string) => floors.data?.find((floor) => floor.floor_id === id)?.floor_name ?? '';
  return (
    <section aria-labelledby="log-dose-heading" data-testid="log-dose">
      <h2 className="h6" id="log-dose-heading">
        {t('dose.title')}
      </h2>
      <DoseLegend scale={scale} />
      {floorsOfDose(dose, trajectory).map((floorId) => (
        <FloorDoseMap
          key={floorId}
          floorId={floorId}
          floorName={nameOf(floorId)}
          rooms={dose.rooms.filter((room) => room.floor_id === floorId)}
          trajectory={trajectory.filter((point) => point.floor_id === floorId)}
          scale={scale}
        />
      ))}
    </section>
  );
};
