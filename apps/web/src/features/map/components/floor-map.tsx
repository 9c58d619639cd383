import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { roomLabelPlace, signedDistanceToOutline, type FloorMapMetadata, type MapPoint, type Robot } from '@uvd/contracts';
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

/** Room names are written this size on the screen (CSS px) at every zoom: readable on a phone, never shrunk. */
export const ROOM_LABEL_PX = 13;
/** Average advance of a sans-serif character, and the line height, as shares of the font size. */
const CHAR_WIDTH = 0.6;
const LINE_HEIGHT = 1.2;
/** A label keeps this far (metres) inside its room's outline: clear of the 0.2 m wall drawn on it. */
const WALL_CLEARANCE = 0.15;

interface RoomLabel {
  /** Plan pixels. */
  at: MapPoint;
  /** Plan pixels, for the fit test. */
  outline: MapPoint[];
  /** The full name over two lines (its number, then the rest), or the number alone where that is all that fits. */
  choices: string[][];
}

const labelOf = (metadata: FloorMapMetadata, name: string, polygon: readonly MapPoint[]): RoomLabel => {
  const [number = name, ...rest] = name.split(/\s+/).filter(Boolean);
  const full = rest.length > 0 ? [number, rest.join(' ')] : [number];
  return {
    at: toPixels(metadata, roomLabelPlace(polygon)),
    outline: polygon.map((point) => toPixels(metadata, point)),
    choices: rest.length > 0 ? [full, [number]] : [full],
  };
};

/** The first of the label's choices whose box, at `font` plan pixels, stays inside the room clear of its walls. */
const fittingLines = (label: RoomLabel, font: number, clearance: number): string[] | null =>
  label.choices.find((lines) => {
    const halfWidth = (Math.max(...lines.map((line) => line.length)) * CHAR_WIDTH * font) / 2;
    const halfHeight = (lines.length * LINE_HEIGHT * font) / 2;
    return [-1, 1].every((sx) =>
      [-1, 1].every((sy) => signedDistanceToOutline({ x: label.at.x + sx * halfWidth, y: label.at.y + sy * halfHeight }, label.outline) >= clearance),
    );
  }) ?? null;

/** Lines of text centred on `at` (plan pixels), with a light halo that keeps them legible over the plan's lines. */
const RoomText = ({ at, lines, font, testId }: { at: MapPoint; lines: readonly string[]; font: number; testId: string }) => (
  <text
    x={at.x}
    y={at.y - ((lines.length - 1) * LINE_HEIGHT * font) / 2}
    fontSize={font}
    textAnchor="middle"
    dominantBaseline="central"
    fill="#052c65"
    stroke="#fff"
    strokeWidth={font / 4}
    paintOrder="stroke"
    pointerEvents="none"
    data-testid={testId}
  >
    {lines.map((line, index) => (
      <tspan key={index} x={at.x} dy={index === 0 ? 0 : LINE_HEIGHT * font}>
        {line}
      </tspan>
    ))}
  </text>
);

/**
 * The map's floor plan: rooms (named where the name fits, at the point of the room farthest from its walls, the
 * same size on the screen at every zoom; the full name on hover or focus), a job's path and the robots.
 */
export const FloorMap = ({ floorName, svg, metadata, robots, highlightedRobotId, trajectory }: FloorMapProps) => {
  const { t } = useTranslation();
  const [shownRoom, setShownRoom] = useState<string | null>(null);
  const unit = markerUnit(metadata);
  const labels = useMemo(() => new Map(metadata.rooms.map((room) => [room.room_id, labelOf(metadata, room.room_name, room.polygon)])), [metadata]);
  // The robot the link names, else the first on this floor: what "Centre on robot" brings into view.
  const focusRobot = robots.find((robot) => robot.robot_id === highlightedRobotId) ?? robots[0];
  const focus = focusRobot?.pose ? { label: t('map.centreOn', { name: focusRobot.name }), at: toPixels(metadata, focusRobot.pose) } : null;

  return (
    <FloorPlan floorName={floorName} svg={svg} frame={metadata} overlayLabel={t('map.overlay', { floor: floorName })} ownRoomLabels focus={focus}>
      {(screenPixel) => {
        const font = screenPixel > 0 ? ROOM_LABEL_PX / screenPixel : 0;
        return (
          <>
            {metadata.rooms.map((room) => {
              const shown = shownRoom === room.room_id;
              const label = labels.get(room.room_id);
              const lines = label && font > 0 ? fittingLines(label, font, WALL_CLEARANCE / metadata.resolution) : null;
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
                  {label && lines && !shown ? <RoomText at={label.at} lines={lines} font={font} testId="room-label" /> : null}
                </g>
              );
            })}
            {trajectory ? <TrajectoryLine frame={metadata} points={trajectory} /> : null}
            {robots.map((robot) => (
              <RobotMarker key={robot.robot_id} frame={metadata} robot={robot} highlighted={robot.robot_id === highlightedRobotId} />
            ))}
            {/* The hovered or focused room's full name, over everything else. */}
            {metadata.rooms
              .filter((room) => room.room_id === shownRoom)
              .map((room) => {
                const label = labels.get(room.room_id);
                return label ? <RoomText key={room.room_id} at={label.at} lines={[room.room_name]} font={font > 0 ? font : unit * 1.6} testId="room-name" /> : null;
              })}
          </>
        );
      }}
    </FloorPlan>
  );
};
