import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FloorMapMetadata, MapPoint, Robot } from '@uvd/contracts';
import { FloorPlan, TrajectoryLine, markerUnit, pointsAttribute, toPixels } from '../../../components/floor-plan/floor-plan.tsx';
import { robotOffline } from '../../../lib/robot-presence.ts';

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
      {robots.map((robot) => {
        if (!robot.pose) return null;
        const at = toPixels(metadata, robot.pose);
        const highlighted = robot.robot_id === highlightedRobotId;
        // An offline robot is drawn grey where it last reported, so nobody takes it for one that is there.
        const offline = robotOffline(robot);
        const tone = offline ? '#6c757d' : '#198754';
        const radius = highlighted ? unit * 1.4 : unit;
        // The plan's y axis points down, so a heading counter-clockwise in metres is clockwise in pixels.
        const head = { x: at.x + Math.cos(robot.pose.theta) * radius * 2, y: at.y - Math.sin(robot.pose.theta) * radius * 2 };
        return (
          <g
            key={robot.robot_id}
            data-testid="robot-marker"
            data-robot-id={robot.robot_id}
            data-x={at.x}
            data-y={at.y}
            data-offline={offline}
            aria-hidden="true"
          >
            <line x1={at.x} y1={at.y} x2={head.x} y2={head.y} stroke={tone} strokeWidth={unit / 3} data-testid="robot-heading" />
            <circle
              cx={at.x}
              cy={at.y}
              r={radius}
              fill={highlighted ? '#ffc107' : tone}
              stroke={highlighted ? '#000' : '#fff'}
              strokeWidth={unit / 4}
            />
            <text x={at.x + radius * 1.3} y={at.y - radius * 1.3} fontSize={unit * 1.6} fontWeight={highlighted ? 'bold' : 'normal'}>
              {robot.name}
            </text>
          </g>
        );
      })}
    </FloorPlan>
  );
};
