/**
 * The lamps the dose model assumes (README.md). A robot's lamp is `robots.lamp`, or DEFAULT_LAMP when null.
 */
import type { LampModel } from '@uvd/contracts';

/**
 * The demo robots' lamp: a 1.2 m vertical tube centred 1.0 m above the floor, with a dip in output behind the robot
 * where the mast and the electronics stand. The demo's simulated robots and history give a room of dose D its
 * D × 6 s from the entry point by its door (seed/history.ts), which assumes about 1/6 W/m² at the room's far wall:
 * 120 W of UV-C (a mobile UV-C robot's order of magnitude) is what the model needs for that at the far corners of
 * the demo's rooms, so that about nine demo rooms in ten reach their planned dose over the whole floor and the rest
 * fall a little short in a corner (README.md). It is a demo's lamp, not a measured robot's.
 */
export const DEFAULT_LAMP: LampModel = {
  uvc_power_w: 120,
  height_m: 1.0,
  length_m: 1.2,
  // 12 factors, 30° apart counter-clockwise from the robot's heading: the back (180°) is shadowed by the mast.
  radial_profile: [1, 1, 1, 1, 0.95, 0.8, 0.6, 0.8, 0.95, 1, 1, 1],
};

/** The lamp a robot carries: its own, or the default one. */
export const lampOf = (robotLamp: LampModel | null | undefined): LampModel => robotLamp ?? DEFAULT_LAMP;
