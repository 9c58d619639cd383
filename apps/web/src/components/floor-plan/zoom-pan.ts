/**
 * The plan's view: translate by (x, y) CSS pixels of the viewport, then scale, with the transform's origin at the
 * viewport's top-left corner. At scale 1 the whole plan is shown; the plan never slides away from the viewport.
 */
export interface PlanView {
  scale: number;
  x: number;
  y: number;
}

export interface ViewportSize {
  width: number;
  height: number;
}

export const WHOLE_PLAN: PlanView = { scale: 1, x: 0, y: 0 };
export const MAX_SCALE = 8;
/** One press of + or −. */
export const ZOOM_STEP = 1.5;
/** One arrow key press moves the plan by this share of the viewport. */
export const PAN_STEP = 0.1;

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** Keeps the zoom within 1–MAX_SCALE and the zoomed plan covering the viewport. */
export const clampView = ({ scale, x, y }: PlanView, size: ViewportSize): PlanView => {
  const s = clamp(scale, 1, MAX_SCALE);
  return { scale: s, x: clamp(x, size.width * (1 - s), 0), y: clamp(y, size.height * (1 - s), 0) };
};

/**
 * Zooms by `factor` and carries the plan's point under `from` (viewport pixels) to `to`: two fingers' midpoint as
 * they pinch and move.
 */
export const pinch = (view: PlanView, factor: number, from: { x: number; y: number }, to: { x: number; y: number }, size: ViewportSize): PlanView => {
  const scale = clamp(view.scale * factor, 1, MAX_SCALE);
  const ratio = scale / view.scale;
  return clampView({ scale, x: to.x - (from.x - view.x) * ratio, y: to.y - (from.y - view.y) * ratio }, size);
};

/** Zooms by `factor` keeping the point `at` (viewport pixels) where it is on the screen: under the cursor or fingers. */
export const zoomAt = (view: PlanView, factor: number, at: { x: number; y: number }, size: ViewportSize): PlanView =>
  pinch(view, factor, at, at, size);

export const panBy = (view: PlanView, dx: number, dy: number, size: ViewportSize): PlanView =>
  clampView({ scale: view.scale, x: view.x + dx, y: view.y + dy }, size);

export const transformOf = ({ scale, x, y }: PlanView): string => `translate(${String(x)}px, ${String(y)}px) scale(${String(scale)})`;
