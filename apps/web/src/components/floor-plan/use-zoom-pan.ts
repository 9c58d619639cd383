import { useCallback, useRef, useState } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';
import { PAN_STEP, WHOLE_PLAN, ZOOM_STEP, clampView, panBy, pinch, zoomAt, type PlanView, type ViewportSize } from './zoom-pan.ts';

interface Point {
  x: number;
  y: number;
}

const midpoint = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

/** Wheel deltas come in pixels, lines or pages; a notch of a mouse wheel (about 100 px) zooms by about 1.2. */
const wheelFactor = (event: WheelEvent) => {
  const pixels = event.deltaY * (event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1);
  return Math.exp(-pixels * 0.002);
};

/**
 * A pinch starts once the fingers' spread changed by this much (CSS px): a finger that rolls or shakes a little
 * as it lands neither zooms nor jumps.
 */
export const PINCH_DEAD_ZONE = 8;
/**
 * The least spread a pinch's zoom is measured from: two fingers landing almost together would otherwise turn a
 * few pixels of movement into a many-fold zoom (issue #25: a small pinch jumped to 500 %).
 */
export const PINCH_MIN_SPREAD = 48;

/** Two fingers on the plan: the view (once the pinch moves it), their spread and midpoint when the pinch began. */
interface Pinch {
  view: PlanView | null;
  spread: number;
  middle: Point;
  started: boolean;
}

/** Controls inside the viewport (the zoom buttons) keep their own clicks and keys. */
const fromControl = (target: EventTarget) => target instanceof Element && target.closest('button, a, input, select, textarea') !== null;

/**
 * Zoom and pan of a plan with pointer events only (no library): a mouse drags and its wheel zooms at the cursor,
 * one finger drags, two fingers pinch about their midpoint, and the keyboard moves (arrows) and zooms (+, −, 0).
 */
export const useZoomPan = () => {
  const [view, setView] = useState<PlanView>(WHOLE_PLAN);
  const viewport = useRef<HTMLDivElement | null>(null);
  // Where each finger or mouse pressing on the plan was last seen, in viewport pixels.
  const pointers = useRef(new Map<number, Point>());
  const pinching = useRef<Pinch | null>(null);
  // The viewport's size, kept by a ResizeObserver: what the overlay needs to draw labels at a readable size.
  const [viewportSize, setViewportSize] = useState<ViewportSize>({ width: 0, height: 0 });

  const measure = (): ViewportSize & { left: number; top: number } => {
    const box = viewport.current?.getBoundingClientRect();
    return { width: box?.width ?? 0, height: box?.height ?? 0, left: box?.left ?? 0, top: box?.top ?? 0 };
  };
  const centre = (size: ViewportSize): Point => ({ x: size.width / 2, y: size.height / 2 });

  // A ref callback with cleanup (React 19): React's onWheel listens passively and could not keep the page still.
  const viewportRef = useCallback((element: HTMLDivElement | null) => {
    viewport.current = element;
    if (!element) return undefined;
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY === 0) return;
      event.preventDefault();
      const box = element.getBoundingClientRect();
      const at = { x: event.clientX - box.left, y: event.clientY - box.top };
      setView((current) => zoomAt(current, wheelFactor(event), at, box));
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    const measured = () => {
      const box = element.getBoundingClientRect();
      setViewportSize((current) => (current.width === box.width && current.height === box.height ? current : { width: box.width, height: box.height }));
    };
    measured();
    // jsdom has no ResizeObserver; browsers do.
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(measured) : null;
    observer?.observe(element);
    return () => {
      element.removeEventListener('wheel', onWheel);
      observer?.disconnect();
      viewport.current = null;
    };
  }, []);

  // Pointers are kept where they are on the screen (client coordinates): a drag moves the plan as far as the
  // finger moved, even when live text above the plan shifts the plan's box meanwhile. Only a pinch's midpoint is
  // taken in the viewport's coordinates, with the box as it is at that event.
  const inViewport = (point: Point, size: { left: number; top: number }): Point => ({ x: point.x - size.left, y: point.y - size.top });

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (fromControl(event.target) || (event.pointerType === 'mouse' && event.button !== 0)) return;
    pointers.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
    event.currentTarget.setPointerCapture(event.pointerId);
    const [first, second] = [...pointers.current.values()];
    if (first && second) {
      const middle = inViewport(midpoint(first, second), measure());
      pinching.current = { view: null, spread: distance(first, second), middle, started: false };
    }
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const before = pointers.current.get(event.pointerId);
    if (!before) return;
    const size = measure();
    const now = { x: event.clientX, y: event.clientY };
    pointers.current.set(event.pointerId, now);
    const gesture = pinching.current;
    const [first, second] = [...pointers.current.values()];
    if (!gesture || !first || !second) {
      setView((current) => panBy(current, now.x - before.x, now.y - before.y, size));
      return;
    }
    // Two fingers: the zoom is the spread's change since the pinch began (not summed move by move), about where
    // the fingers began, carried to where their midpoint is now.
    const spread = distance(first, second);
    const middle = inViewport(midpoint(first, second), size);
    if (!gesture.started && Math.abs(spread - gesture.spread) < PINCH_DEAD_ZONE && distance(middle, gesture.middle) < PINCH_DEAD_ZONE) return;
    gesture.started = true;
    const factor = Math.max(spread, PINCH_MIN_SPREAD) / Math.max(gesture.spread, PINCH_MIN_SPREAD);
    setView((current) => {
      // The view the pinch began from: the state as the first move finds it (a render may not have followed a click).
      gesture.view ??= current;
      return pinch(gesture.view, factor, gesture.middle, middle, size);
    });
  };

  const onPointerEnd = (event: PointerEvent<HTMLDivElement>) => {
    pointers.current.delete(event.pointerId);
    // The finger left on the plan drags from here on.
    pinching.current = null;
  };

  const zoomIn = () => {
    const size = measure();
    setView((current) => zoomAt(current, ZOOM_STEP, centre(size), size));
  };
  const zoomOut = () => {
    const size = measure();
    setView((current) => zoomAt(current, 1 / ZOOM_STEP, centre(size), size));
  };
  const showWholePlan = () => {
    setView(WHOLE_PLAN);
  };
  /** Brings `point` (pixels of the unzoomed viewport) to the centre, zoomed in to at least `scale`. */
  const centreOn = (point: Point, scale: number) => {
    const size = measure();
    setView((current) => {
      const s = Math.max(current.scale, scale);
      return clampView({ scale: s, x: size.width / 2 - point.x * s, y: size.height / 2 - point.y * s }, size);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (fromControl(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
    const size = measure();
    const step = { x: size.width * PAN_STEP, y: size.height * PAN_STEP };
    // An arrow moves the view that way, as scrolling does: the plan slides the other way.
    const moves: Record<string, Point> = {
      ArrowLeft: { x: step.x, y: 0 },
      ArrowRight: { x: -step.x, y: 0 },
      ArrowUp: { x: 0, y: step.y },
      ArrowDown: { x: 0, y: -step.y },
    };
    const move = moves[event.key];
    if (move) setView((current) => panBy(current, move.x, move.y, size));
    else if (event.key === '+' || event.key === '=') zoomIn();
    else if (event.key === '-' || event.key === '_') zoomOut();
    else if (event.key === '0') showWholePlan();
    else return;
    event.preventDefault();
  };

  return {
    view,
    viewportSize,
    viewportRef,
    centreOn,
    zoomIn,
    zoomOut,
    showWholePlan,
    handlers: { onPointerDown, onPointerMove, onPointerUp: onPointerEnd, onPointerCancel: onPointerEnd, onKeyDown },
  };
};
