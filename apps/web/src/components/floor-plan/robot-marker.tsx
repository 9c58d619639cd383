import type { MapFrame, Robot } from '@uvd/contracts';
import { robotOffline } from '../../lib/robot-presence.ts';
import { markerUnit, toPixels } from './floor-plan.tsx';

/**
 * A robot where it last reported, drawn inside a FloorPlan's overlay: a dot with its heading and name, green when
 * it is there, grey when offline (so nobody takes it for one that is there), yellow and larger when highlighted.
 */
export const RobotMarker = ({ frame, robot, highlighted = false }: { frame: MapFrame; robot: Robot; highlighted?: boolean }) => {
  if (!robot.pose) return null;
  const unit = markerUnit(frame);
  const at = toPixels(frame, robot.pose);
  const offline = robotOffline(robot);
  const tone = offline ? '#6c757d' : '#198754';
  const radius = highlighted ? unit * 1.4 : unit;
  // The plan's y axis points down, so a heading counter-clockwise in metres is clockwise in pixels.
  const head = { x: at.x + Math.cos(robot.pose.theta) * radius * 2, y: at.y - Math.sin(robot.pose.theta) * radius * 2 };
  return (
    <g data-testid="robot-marker" data-robot-id={robot.robot_id} data-x={at.x} data-y={at.y} data-offline={offline} aria-hidden="true">
      <line x1={at.x} y1={at.y} x2={head.x} y2={head.y} stroke={tone} strokeWidth={unit / 3} data-testid="robot-heading" />
      <circle cx={at.x} cy={at.y} r={radius} fill={highlighted ? '#ffc107' : tone} stroke={highlighted ? '#000' : '#fff'} strokeWidth={unit / 4} />
      <text x={at.x + radius * 1.3} y={at.y - radius * 1.3} fontSize={unit * 1.6} fontWeight={highlighted ? 'bold' : 'normal'}>
        {robot.name}
      </text>
    </g>
  );
};
