import { useCallback, useMemo } from 'react';
import type { CSSProperties, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { MapFrame, MapPoint } from '@uvd/contracts';
import { MAX_SCALE, transformOf, type ViewportSize } from './zoom-pan.ts';
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

/** The id of the label layer in the plans our site writer draws (apps/server seed/plan-svg.ts). */
const PLAN_LABEL_LAYER = 'room-labels';

/** The plan's SVG without its own room labels, for an overlay that writes them at a readable size. */
const withoutPlanLabels = (svg: string): string => {
  const document = new DOMParser().parseFromString(svg, 'image/svg+xml');
  const layer = document.getElementById(PLAN_LABEL_LAYER);
  if (!layer) return svg;
  layer.remove();
  return new XMLSerializer().serializeToString(document);
};

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

/**
 * How the overlay's plan pixels lie in the unzoomed viewport (CSS px): the plan is contained, centred, so one plan
 * pixel is `pixel` CSS px and the plan starts at (left, top).
 */
export interface PlanFit {
  pixel: number;
  left: number;
  top: number;
}

const fitOf = (frame: Pick<MapFrame, 'width' | 'height'>, size: ViewportSize): PlanFit => {
  const pixel = frame.width > 0 && frame.height > 0 ? Math.min(size.width / frame.width, size.height / frame.height) : 0;
  return { pixel, left: (size.width - frame.width * pixel) / 2, top: (size.height - frame.height * pixel) / 2 };
};

/** A point of the plan the "Centre on" button brings to the middle of the view, and the button's name. */
export interface PlanFocus {
  label: string;
  /** Plan pixels (toPixels). */
  at: MapPoint;
}

/** A robot's "Centre on" zooms in to at least this much, so its surroundings read at once. */
const FOCUS_SCALE = 2;

export interface FloorPlanProps {
  floorName: string;
  svg: string;
  frame: MapFrame;
  /**
   * What is drawn over the plan, in the plan's pixels (rooms, robots, a trajectory); as a function, it is given how
   * many screen pixels a plan pixel now covers (zoom included), to draw text at a readable size.
   */
  children: ReactNode | ((screenPixel: number) => ReactNode);
  /** Names what the overlay holds, for screen readers. */
  overlayLabel: string;
  testId?: string;
  /** A variant of the viewport's size (styles/theme.css), e.g. `floor-plan-inset` inside a list row. */
  className?: string;
  /** The overlay writes the room names itself: the plan's own label layer is left out. */
  ownRoomLabels?: boolean;
  /** Offers a button that centres the view on this point (a robot). */
  focus?: PlanFocus | null;
}

const fill = { position: 'absolute', inset: 0, width: '100%', height: '100%' } as const;

/**
 * A floor's plan with an overlay, zoomable and movable by wheel, drag, pinch, keyboard and the +, −, whole-plan
 * (and centre-on) buttons, which sit in a row above the plan so they cover no room. 600 px high from 768 px up
 * (behaviour §2); on a phone as wide as the screen and nearly as high (styles/theme.css `.floor-plan`).
 */
export const FloorPlan = ({ floorName, svg, frame, children, overlayLabel, testId = 'floor-map', className, ownRoomLabels = false, focus = null }: FloorPlanProps) => {
  const { t } = useTranslation();
  const shownSvg = useMemo(() => (ownRoomLabels ? withoutPlanLabels(svg) : svg), [svg, ownRoomLabels]);
  const imageRef = useSvgImageRef(shownSvg);
  const { view, viewportSize, viewportRef, zoomIn, zoomOut, showWholePlan, centreOn, handlers } = useZoomPan();
  const shape = { '--plan-ratio': String(frame.height / frame.width) } as CSSProperties;
  const fit = fitOf(frame, viewportSize);
  const overlay = typeof children === 'function' ? children(fit.pixel * view.scale) : children;

  return (
    // The frame is a size container: the plan's phone height follows its width (cqw), and inside a table cell
    // (a log's row) the plan adds nothing to the table's minimum width.
    <div className="floor-plan-frame">
      <div className="floor-plan-controls d-flex flex-wrap gap-2 mb-2" role="group" aria-label={t('map.controls', { floor: floorName })}>
        <div className="btn-group" role="group">
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
        {focus ? (
          <button
            type="button"
            className="btn btn-light border floor-plan-focus"
            data-testid="plan-focus"
            onClick={() => {
              centreOn({ x: fit.left + focus.at.x * fit.pixel, y: fit.top + focus.at.y * fit.pixel }, FOCUS_SCALE);
            }}
          >
            {focus.label}
          </button>
        ) : null}
      </div>
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
            {overlay}
          </svg>
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
