import { useCallback } from 'react';
import type { CSSProperties, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { MapFrame, MapPoint } from '@uvd/contracts';
import { MAX_SCALE, transformOf } from './zoom-pan.ts';
import { useZoomPan } from './use-zoom-pan.ts';

/** Metres on the floor's frame → pixels of the plan (y grows downwards in the image, upwards in the map frame). */
export const toPixels = (frame: Pick<MapFrame, 'origin' | 'resolution' | 'height'>, point: MapPoint): MapPoint => ({
  x: (point.x - frame.origin.x) / frame.resolution,
  y: frame.height - (point.y - frame.origin.y) / frame.resolution,
});

export const pointsAttribute = (frame: MapFrame, points: readonly MapPoint[]): string =>
  points
    .map((point) => toPixels(frame, point))
    .map(({ x, y }) => `${String(x)},${String(y)}`)
    .join(' ');

/** A marker's size in plan pixels that stays readable whatever the plan's scale. */
export const markerUnit = (frame: MapFrame) => Math.max(frame.width, frame.height) / 100;

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

export interface FloorPlanProps {
  floorName: string;
  svg: string;
  frame: MapFrame;
  /** What is drawn over the plan, in the plan's pixels (rooms, robots, a trajectory). */
  children: ReactNode;
  /** Names what the overlay holds, for screen readers. */
  overlayLabel: string;
  testId?: string;
  /** A variant of the viewport's size (styles/theme.css), e.g. `floor-plan-inset` inside a list row. */
  className?: string;
}

const fill = { position: 'absolute', inset: 0, width: '100%', height: '100%' } as const;

/**
 * A floor's plan with an overlay, zoomable and movable by wheel, drag, pinch, keyboard and the +, − and whole-plan
 * buttons. 600 px high from 768 px up (spec §2); on a phone as wide as the screen and as high as the plan's shape
 * needs (styles/theme.css `.floor-plan`), so a long corridor is not a strip in a tall grey box.
 */
export const FloorPlan = ({ floorName, svg, frame, children, overlayLabel, testId = 'floor-map', className }: FloorPlanProps) => {
  const { t } = useTranslation();
  const imageRef = useSvgImageRef(svg);
  const { view, viewportRef, zoomIn, zoomOut, showWholePlan, handlers } = useZoomPan();
  const shape = { '--plan-ratio': String(frame.height / frame.width) } as CSSProperties;

  return (
    // The frame is a size container: the plan's phone height follows its width (cqw), and inside a table cell
    // (a log's row) the plan adds nothing to the table's minimum width.
    <div className="floor-plan-frame">
      <div
        ref={viewportRef}
        className={`floor-plan border rounded bg-light ${className ?? ''}`}
        style={shape}
        data-testid={testId}
        role="group"
        aria-label={t('map.viewport', { floor: floorName })}
        tabIndex={0}
        {...handlers}
      >
        <div style={{ ...fill, transform: transformOf(view), transformOrigin: '0 0' }} data-testid="plan-layer" data-scale={view.scale}>
          <img ref={imageRef} alt={t('map.planAlt', { floor: floorName })} style={{ ...fill, objectFit: 'contain' }} draggable={false} />
          <svg
            viewBox={`0 0 ${String(frame.width)} ${String(frame.height)}`}
            preserveAspectRatio="xMidYMid meet"
            style={fill}
            role="group"
            aria-label={overlayLabel}
            data-testid="map-overlay"
          >
            {children}
          </svg>
        </div>
        <div className="floor-plan-controls btn-group-vertical shadow-sm">
          {/* aria-disabled, not disabled: a button that turns disabled under the keyboard's focus drops the focus. */}
          <button type="button" className="btn btn-light border" onClick={zoomIn} aria-disabled={view.scale >= MAX_SCALE} aria-label={t('map.zoomIn')}>
            <span aria-hidden="true">+</span>
          </button>
          <button type="button" className="btn btn-light border" onClick={zoomOut} aria-disabled={view.scale <= 1} aria-label={t('map.zoomOut')}>
            <span aria-hidden="true">−</span>
          </button>
          <button type="button" className="btn btn-light border" onClick={showWholePlan} aria-label={t('map.zoomReset')}>
            <span aria-hidden="true">⤢</span>
          </button>
        </div>
        <span className="visually-hidden" role="status">
          {t('map.zoomLevel', { percent: Math.round(view.scale * 100) })}
        </span>
      </div>
    </div>
  );
};

/** A robot's recorded path on the plan, drawn inside a FloorPlan's overlay. */
export const TrajectoryLine = ({ frame, points }: { frame: MapFrame; points: readonly MapPoint[] }) =>
  points.length > 0 ? (
    <polyline
      points={pointsAttribute(frame, points)}
      fill="none"
      stroke="#dc3545"
      strokeWidth={markerUnit(frame) / 3}
      strokeLinejoin="round"
      data-testid="trajectory"
    />
  ) : null;
