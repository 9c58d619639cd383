/**
 * The lamps the dose model assumes (README.md). A robot's lamp is `robots.lamp`, or DEFAULT_LAMP when null.
 */
import type { LampModel } from '@uvd/contracts';

/**
 * The demo robots' lamp: a 1.2 m vertical tube centred 1.0 m above the floor, with a dip in output behind the robot
 * where the mast and the electronics stand. Its power is chosen so that the model gives 1/6 W/m² in front of the
 * robot at 3 m (0.1665 W/m², model.ts; model.test.ts holds it), the irradiance the
 * demo's simulated robots and history assume (a dose of D J/m² in D × 6 s; seed/history.ts): demo rooms come out
 * near their planned dose. It is a demo's lamp, not a measured robot's.
 */
export const DEFAULT_LAMP: LampModel = {
  uvc_power_w: 19.2,
  height_m: 1.0,
  length_m: 1.2,
  // 12 factors, 30° apart counter-clockwise from the robot's heading: the back (180°) is shadowed by the mast.
  radial_profile: [1, 1, 1, 1, 0.95, 0.8, 0.6, 0.8, 0.95, 1, 1, 1],
};

/** The lamp a robot carries: its own, or the default one. */
export const lampOf = (robotLamp: LampModel | null | undefined): LampModel => robotLamp ?? DEFAULT_LAMP;
