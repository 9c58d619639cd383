import { useCallback, useRef, useState } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';
import { PAN_STEP, WHOLE_PLAN, ZOOM_STEP, panBy, pinch, zoomAt, type PlanView, type ViewportSize } from './zoom-pan.ts';

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
    return () => {
      element.removeEventListener('wheel', onWheel);
      viewport.current = null;
    };
  }, []);

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (fromControl(event.target) || (event.pointerType === 'mouse' && event.button !== 0)) return;
    const size = measure();
    pointers.current.set(event.pointerId, { x: event.clientX - size.left, y: event.clientY - size.top });
    event.currentTarget.setPointerCapture(event.pointerId);
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const before = pointers.current.get(event.pointerId);
    if (!before) return;
    const size = measure();
    const now = { x: event.clientX - size.left, y: event.clientY - size.top };
    const other = [...pointers.current.entries()].find(([id]) => id !== event.pointerId)?.[1];
    pointers.current.set(event.pointerId, now);
    if (!other) {
      setView((current) => panBy(current, now.x - before.x, now.y - before.y, size));
      return;
    }
    // Two fingers: zoom by how far apart they moved, about where they are, and follow their midpoint.
    const [was, is] = [midpoint(before, other), midpoint(now, other)];
    const spreadBefore = distance(before, other);
    const factor = spreadBefore > 0 ? distance(now, other) / spreadBefore : 1;
    setView((current) => pinch(current, factor, was, is, size));
  };

  const onPointerEnd = (event: PointerEvent<HTMLDivElement>) => {
    pointers.current.delete(event.pointerId);
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
    viewportRef,
    zoomIn,
    zoomOut,
    showWholePlan,
    handlers: { onPointerDown, onPointerMove, onPointerUp: onPointerEnd, onPointerCancel: onPointerEnd, onKeyDown },
  };
};
