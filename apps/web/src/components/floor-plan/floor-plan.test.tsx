import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../../lib/i18n.ts';
import { FloorPlan } from './floor-plan.tsx';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"/>';
const FRAME = { resolution: 0.05, origin: { x: 0, y: 0 }, width: 400, height: 300 };
/** The viewport as laid out on a phone: 400×300 CSS pixels, 100 px from the left, 50 px from the top. */
const BOX = { left: 100, top: 50, width: 400, height: 300 };

beforeEach(() => {
  vi.stubGlobal('URL', Object.assign(class extends URL {}, { createObjectURL: () => 'blob:plan', revokeObjectURL: () => undefined }));
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(
    DOMRect.fromRect({ x: BOX.left, y: BOX.top, width: BOX.width, height: BOX.height }),
  );
  // jsdom has no pointer capture; the browser's keeps a drag going outside the plan.
  HTMLElement.prototype.setPointerCapture = () => undefined;
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const renderPlan = async () => {
  const i18n = await createI18n({ language: 'en' });
  render(
    <I18nextProvider i18n={i18n}>
      <FloorPlan floorName="Ward 3A" svg={SVG} frame={FRAME} overlayLabel="Rooms and robots">
        <circle cx={10} cy={10} r={2} />
      </FloorPlan>
    </I18nextProvider>,
  );
  return screen.getByRole('group', { name: /^Floor plan of Ward 3A/ });
};

const layer = () => screen.getByTestId('plan-layer');
const transform = () => layer().style.transform;

/** The plan zoomed in once with its button (to 150 %, about its centre): its viewport. */
const zoomedInPlan = async () => {
  const viewport = await renderPlan();
  await userEvent.setup().click(screen.getByRole('button', { name: 'Zoom in' }));
  expect(transform()).toBe('translate(-100px, -75px) scale(1.5)');
  return viewport;
};

/** Pointer events as a browser sends them (jsdom has no PointerEvent: a MouseEvent carries the coordinates). */
const pointer = (type: string, target: Element, pointerId: number, clientX: number, clientY: number, pointerType = 'touch') => {
  const event = new MouseEvent(type, { bubbles: true, cancelable: true, clientX, clientY, button: 0 });
  Object.assign(event, { pointerId, pointerType });
  fireEvent(target, event);
};

describe('floor plan zoom and pan', () => {
  it('shows the whole plan first; + zooms about the centre, − back, and the whole-plan button resets, by click and keyboard', async () => {
    const user = userEvent.setup();
    await renderPlan();
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
    const zoomOut = screen.getByRole('button', { name: 'Zoom out' });
    expect(zoomOut).toHaveAttribute('aria-disabled', 'true');
    // Pressed anyway, it changes nothing and keeps the focus.
    await user.click(zoomOut);
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
    expect(zoomOut).toHaveFocus();

    await user.click(screen.getByRole('button', { name: 'Zoom in' }));
    // The centre (200, 150) stays put: 200 - 200 × 1.5 = -100.
    expect(transform()).toBe('translate(-100px, -75px) scale(1.5)');
    expect(screen.getByRole('status')).toHaveTextContent('Zoom 150 %');
    expect(zoomOut).toHaveAttribute('aria-disabled', 'false');

    zoomOut.focus();
    await user.keyboard('{Enter}');
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
    expect(zoomOut).toHaveFocus();

    await user.click(screen.getByRole('button', { name: 'Zoom in' }));
    await user.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(layer()).toHaveAttribute('data-scale', '2.25');
    screen.getByRole('button', { name: 'Show the whole plan' }).focus();
    await user.keyboard(' ');
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
  });

  it('zooms with + and −, moves with the arrow keys and never slides the plan out of view', async () => {
    const user = userEvent.setup();
    const viewport = await renderPlan();
    viewport.focus();
    await user.keyboard('+');
    expect(transform()).toBe('translate(-100px, -75px) scale(1.5)');
    // An arrow moves the view by a tenth of the viewport: the plan slides 40 px the other way.
    await user.keyboard('{ArrowRight}');
    expect(transform()).toBe('translate(-140px, -75px) scale(1.5)');
    await user.keyboard('{ArrowDown}');
    expect(transform()).toBe('translate(-140px, -105px) scale(1.5)');
    // At 1.5× the plan is 600×450 px in 400×300: it can move 200 px left at most.
    for (let i = 0; i < 10; i += 1) await user.keyboard('{ArrowRight}');
    expect(transform()).toBe('translate(-200px, -105px) scale(1.5)');
    await user.keyboard('0');
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
    // At the whole plan there is nowhere to move.
    await user.keyboard('{ArrowLeft}{ArrowUp}');
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
    await user.keyboard('-');
    expect(transform()).toBe('translate(0px, 0px) scale(1)');
  });

  it('zooms at the cursor with the wheel, keeping the page still', async () => {
    const viewport = await renderPlan();
    // Cursor at (200, 100) in the viewport; one notch of 100 px in zooms by e^0.2.
    const wheel = new WheelEvent('wheel', { deltaY: -100, clientX: BOX.left + 200, clientY: BOX.top + 100, bubbles: true, cancelable: true });
    fireEvent(viewport, wheel);
    expect(wheel.defaultPrevented).toBe(true);
    const scale = Math.exp(0.2);
    expect(Number(layer().getAttribute('data-scale'))).toBeCloseTo(scale, 6);
    const [x = NaN, y = NaN] = /translate\(([-\d.]+)px, ([-\d.]+)px\)/.exec(transform())?.slice(1).map(Number) ?? [];
    expect(x).toBeCloseTo(200 - 200 * scale, 6);
    expect(y).toBeCloseTo(100 - 100 * scale, 6);
  });

  it('drags the zoomed plan with one finger or the mouse, and pinches with two fingers about their midpoint', async () => {
    const viewport = await zoomedInPlan();

    // One finger drags 30 px right and 20 px down.
    pointer('pointerdown', viewport, 1, BOX.left + 100, BOX.top + 100);
    pointer('pointermove', viewport, 1, BOX.left + 130, BOX.top + 120);
    pointer('pointerup', viewport, 1, BOX.left + 130, BOX.top + 120);
    expect(transform()).toBe('translate(-70px, -55px) scale(1.5)');
    // A move after the finger lifted does nothing.
    pointer('pointermove', viewport, 1, BOX.left + 300, BOX.top + 300);
    expect(transform()).toBe('translate(-70px, -55px) scale(1.5)');

    // The mouse drags the same way.
    pointer('pointerdown', viewport, 7, BOX.left + 200, BOX.top + 200, 'mouse');
    pointer('pointermove', viewport, 7, BOX.left + 190, BOX.top + 195, 'mouse');
    pointer('pointerup', viewport, 7, BOX.left + 190, BOX.top + 195, 'mouse');
    expect(transform()).toBe('translate(-80px, -60px) scale(1.5)');

    // Two fingers 100 px apart about (200, 150) spread to 200 px apart: twice the zoom, the midpoint stays put.
    screen.getByRole('button', { name: 'Show the whole plan' }).click();
    pointer('pointerdown', viewport, 2, BOX.left + 150, BOX.top + 150);
    pointer('pointerdown', viewport, 3, BOX.left + 250, BOX.top + 150);
    pointer('pointermove', viewport, 2, BOX.left + 100, BOX.top + 150);
    pointer('pointermove', viewport, 3, BOX.left + 300, BOX.top + 150);
    expect(layer()).toHaveAttribute('data-scale', '2');
    expect(transform()).toBe('translate(-200px, -150px) scale(2)');
    pointer('pointercancel', viewport, 2, 0, 0);
    pointer('pointerup', viewport, 3, 0, 0);
  });

  it('drags the plan as far as the finger moved while live text above shifts the plan down the page', async () => {
    const viewport = await zoomedInPlan();
    pointer('pointerdown', viewport, 1, BOX.left + 100, BOX.top + 100);
    // A status line above the plan wraps mid-drag: the plan's box is 20 px lower from now on.
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(
      DOMRect.fromRect({ x: BOX.left, y: BOX.top + 20, width: BOX.width, height: BOX.height }),
    );
    pointer('pointermove', viewport, 1, BOX.left + 70, BOX.top + 90);
    pointer('pointerup', viewport, 1, BOX.left + 70, BOX.top + 90);
    // The finger moved 30 px left and 10 px up on the screen: so did the plan.
    expect(transform()).toBe('translate(-130px, -85px) scale(1.5)');
  });

  // Issue #25: a small pinch jumped to 500 % and lost the robot.
  it('ignores fingers that shake as they land, zooms a little for a small pinch, and measures close fingers from 48 px apart', async () => {
    const viewport = await renderPlan();
    const gesture = (from: number, to: number) => {
      pointer('pointerdown', viewport, 4, BOX.left + 200 - from / 2, BOX.top + 150);
      pointer('pointerdown', viewport, 5, BOX.left + 200 + from / 2, BOX.top + 150);
      for (const step of [1, 2, 3]) {
        const spread = from + ((to - from) * step) / 3;
        pointer('pointermove', viewport, 4, BOX.left + 200 - spread / 2, BOX.top + 150);
        pointer('pointermove', viewport, 5, BOX.left + 200 + spread / 2, BOX.top + 150);
      }
      pointer('pointerup', viewport, 4, 0, 0);
      pointer('pointerup', viewport, 5, 0, 0);
      return Number(layer().getAttribute('data-scale'));
    };
    expect(gesture(60, 66)).toBe(1);
    expect(gesture(60, 75)).toBeCloseTo(1.25, 6);
    fireEvent.click(screen.getByRole('button', { name: 'Show the whole plan' }));
    // 10 px apart, parted to 60: from 48 to 60, not six times the zoom.
    expect(gesture(10, 60)).toBeCloseTo(1.25, 6);
  });
});
