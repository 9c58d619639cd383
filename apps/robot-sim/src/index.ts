export { SimRobot } from './sim-robot.ts';
export type { SimRobotCounters, SimRobotOptions, SimStateListener } from './sim-robot.ts';
export { RobotModel } from './robot-model.ts';
export type { BatteryRates, DrawerState, PinEntry, Pose, RobotModelOptions, RobotStateBody, SimRobotKind } from './robot-model.ts';
export { startSimFleet } from './sim-fleet.ts';
export type { SimFleet, SimFleetOptions, SimFleetRobot } from './sim-fleet.ts';
