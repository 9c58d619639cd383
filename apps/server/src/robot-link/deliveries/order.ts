/**
 * A delivery as a VDA 5050 order (robot-link/README.md, deliveries/README.md): a node where the robot stands, the
 * pickup room's entry point with a HARD `pick`, the drop-off room's entry point with a HARD `drop`, and the robot's
 * home. `pick` and `drop` are VDA 5050 2.0's predefined load actions with their standard parameters (stationType
 * `room`, stationName the room id, loadType `drawer`, loadId the delivery id). The orderId is the delivery id; the
 * action ids name the dispatch (`pickActionId`, `dropActionId`), so a robot taking a handed-back delivery gets new ones.
 * Every node and edge is released: the robot carries the delivery even while the server is away.
 */
import { VdaLoadAction, type OrderNode, type VdaAction } from '@uvd/contracts';
import type { Pose } from '../../db/schema.ts';
import { edgesBetween, HOME_NODE_ID, position, START_NODE_ID, type OrderBody, type OrderHome } from '../order.ts';
import { dropActionId, pickActionId } from './commands.ts';

export const PICKUP_NODE_ID = 'pickup';
export const DROPOFF_NODE_ID = 'dropoff';

/** A room the robot stops at: where it stands (its entry point) on its floor. */
export interface DeliveryStop {
  roomId: string;
  floorId: string;
  /** Without one the node carries no position: a robot takes it as where it stands (rooms should have one). */
  entryPoint: Pose | null;
}

export interface DeliveryOrderInput {
  deliveryId: string;
  /** deliveries.dispatch_attempts of this dispatch (1 for the first robot). */
  dispatch: number;
  orderUpdateId: number;
  pickup: DeliveryStop;
  dropoff: DeliveryStop;
  home: OrderHome;
  /** Where the robot stands now; without a known pose the order begins at the pickup. */
  start: OrderHome;
}

const loadAction = (actionType: string, actionId: string, stop: DeliveryStop, deliveryId: string): VdaAction => ({
  actionType,
  actionId,
  blockingType: 'HARD',
  actionParameters: [
    { key: 'stationType', value: 'room' },
    { key: 'stationName', value: stop.roomId },
    { key: 'loadType', value: 'drawer' },
    { key: 'loadId', value: deliveryId },
  ],
});

export function buildDeliveryOrder(input: DeliveryOrderInput): OrderBody {
  const { deliveryId, dispatch } = input;
  const nodes: OrderNode[] = [];
  const add = (nodeId: string, nodePosition: OrderNode['nodePosition'], actions: VdaAction[]) => {
    nodes.push({ nodeId, sequenceId: nodes.length * 2, released: true, ...(nodePosition ? { nodePosition } : {}), actions });
  };
  const startPosition = position(input.start.pose, input.start.floorId);
  if (startPosition) add(START_NODE_ID, startPosition, []);
  add(PICKUP_NODE_ID, position(input.pickup.entryPoint, input.pickup.floorId), [
    loadAction(VdaLoadAction.pick, pickActionId(deliveryId, dispatch), input.pickup, deliveryId),
  ]);
  add(DROPOFF_NODE_ID, position(input.dropoff.entryPoint, input.dropoff.floorId), [
    loadAction(VdaLoadAction.drop, dropActionId(deliveryId, dispatch), input.dropoff, deliveryId),
  ]);
  add(HOME_NODE_ID, position(input.home.pose, input.home.floorId), []);
  return { orderId: deliveryId, orderUpdateId: input.orderUpdateId, nodes, edges: edgesBetween(nodes) };
}
