import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FloorMapMetadata, MapPoint, Robot } from '@uvd/contracts';
import { robotOffline } from '../../../lib/robot-presence.ts';

/** Spec §2: the map is 600 px high. */
export const MAP_HEIGHT_PX = 600;

/** Metres on the floor's frame → pixels of the plan (y grows downwards in the image, upwards in the map frame). */
export const toPixels = (metadata: Pick<FloorMapMetadata, 'origin' | 'resolution' | 'height'>, point: MapPoint): MapPoint => ({
  x: (point.x - metadata.origin.x) / metadata.resolution,
  y: metadata.height - (point.y - metadata.origin.y) / metadata.resolution,
});

const pointsAttribute = (metadata: FloorMapMetadata, points: readonly MapPoint[]): string =>
  points
    .map((point) => toPixels(metadata, point))
    .map(({ x, y }) => `${x},${y}`)
    .join(' ');

/**
 * The plan comes as SVG text from the server. Shown through <img> from a Blob URL, a script or link inside it
 * never runs (an image document is inert), which innerHTML could not promise.
 */
const useSvgImageRef = (svg: string) =>
  // A ref callback with cleanup (React 19): the URL lives exactly as long as the <img> shows this document.
  useCallback(
    (image: HTMLImageElement | null) => {
      if (!image) return undefined;
      const objectUrl = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
      image.src = objectUrl;
      return () => {
        URL.revokeObjectURL(objectUrl);
      };
    },
    [svg],
  );

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
  const imageRef = useSvgImageRef(svg);
  const [shownRoom, setShownRoom] = useState<string | null>(null);
  // A marker's size in plan pixels that stays readable whatever the plan's scale.
  const unit = Math.max(metadata.width, metadata.height) / 100;
  const fit = { position: 'absolute', inset: 0, width: '100%', height: '100%' } as const;

  return (
    <div className="position-relative border rounded bg-light overflow-hidden" style={{ height: MAP_HEIGHT_PX }} data-testid="floor-map">
      <img ref={imageRef} alt={t('map.planAlt', { floor: floorName })} style={{ ...fit, objectFit: 'contain' }} />
      <svg
        viewBox={`0 0 ${metadata.width} ${metadata.height}`}
        preserveAspectRatio="xMidYMid meet"
        style={fit}
        role="group"
        aria-label={t('map.overlay', { floor: floorName })}
        data-testid="map-overlay"
      >
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
        {trajectory && trajectory.length > 0 ? (
          <polyline
            points={pointsAttribute(metadata, trajectory)}
            fill="none"
            stroke="#dc3545"
            strokeWidth={unit / 3}
            strokeLinejoin="round"
            data-testid="trajectory"
          />
        ) : null}
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
      </svg>
    </div>
  );
};
