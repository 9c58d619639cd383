import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FloorMapMetadata, MapPoint, Robot } from '@uvd/contracts';
import { FloorPlan, TrajectoryLine, markerUnit, pointsAttribute, toPixels } from '../../../components/floor-plan/floor-plan.tsx';
import { RobotMarker } from '../../../components/floor-plan/robot-marker.tsx';

export interface FloorMapProps {
  floorName: string;
  svg: string;
  metadata: FloorMapMetadata;
  robots: readonly Robot[];
  highlightedRobotId: string | null;
  trajectory: readonly MapPoint[] | null;
}

export const FloorMap = ({ floorName, svg, metadata, robots, highlightedRobotId, trajectory }: FloorMapProps) => {
  const { t } = useTranslation();
  const [shownRoom, setShownRoom] = useState<string | null>(null);
  const unit = markerUnit(metadata);

  return (
    <FloorPlan floorName={floorName} svg={svg} frame={metadata} overlayLabel={t('map.overlay', { floor: floorName })}>
      {metadata.rooms.map((room) => {
        const shown = shownRoom === room.room_id;
        const first = room.polygon[0];
        const label = first ? toPixels(metadata, first) : null;
        return (
          <g
            key={room.room_id}
            tabIndex={0}
            role="img"
            aria-label={room.room_name}
            data-testid="map-room"
            onMouseEnter={() => {
              setShownRoom(room.room_id);
            }}
            onMouseLeave={() => {
              setShownRoom(null);
            }}
            onFocus={() => {
              setShownRoom(room.room_id);
            }}
            onBlur={() => {
              setShownRoom(null);
            }}
          >
            <title>{room.room_name}</title>
            <polygon
              points={pointsAttribute(metadata, room.polygon)}
              fill={shown ? 'rgba(13,110,253,0.2)' : 'rgba(13,110,253,0.06)'}
              stroke="#0d6efd"
              strokeWidth={unit / 4}
            />
            {shown && label ? (
              <text x={label.x + unit / 2} y={label.y + unit * 1.5} fontSize={unit * 1.6} fill="#052c65" data-testid="room-name">
                {room.room_name}
              </text>
            ) : null}
          </g>
        );
      })}
      {trajectory ? <TrajectoryLine frame={metadata} points={trajectory} /> : null}
      {robots.map((robot) => (
        <RobotMarker key={robot.robot_id} frame={metadata} robot={robot} highlighted={robot.robot_id === highlightedRobotId} />
      ))}
    </FloorPlan>
  );
};
