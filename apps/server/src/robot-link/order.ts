/**
 * A job as a VDA 5050 order (documented in README.md): first a node where the robot
 * stands (VDA 5050 §6.6: a new order's first node must be within the vehicle's deviation range, so a standard
 * robot refuses an order that starts elsewhere), then one node per room at its entry point, in job order, each
 * with a HARD `uvd_disinfect` action carrying the room, its dose and whether it is ready; then the robot's home
 * as the last node. Every node and edge is released: the robot may run the whole
 * job without the server (a connection drop does not stop it). The orderId is the job id.
 */
import { UvdActionType, type OrderEdge, type OrderNode, type VdaAction } from '@uvd/contracts';
import type { Pose } from '../db/schema.ts';
import type { Fleet } from './fleet.ts';

export type OrderBody = Parameters<Fleet['sendOrder']>[1];

export interface OrderRoom {
  orderNo: number;
  roomId: string;
  dose: number;
  floorId: string;
  /** Where the robot stands to disinfect; a room without one gets a node without position (not reachable). */
  entryPoint: Pose | null;
  /** rooms.ready_for_disinfection when the order is sent: a room not ready makes the robot ask first. */
  ready: boolean;
}

export interface OrderHome {
  floorId: string | null;
  pose: Pose | null;
}

export const START_NODE_ID = 'start';
export const HOME_NODE_ID = 'home';
export const roomNodeId = (orderNo: number, roomId: string) => `room-${orderNo}-${roomId}`;
export const disinfectActionId = (jobId: string, orderNo: number) => `disinfect-${jobId}-${orderNo}`;
/** The job and room a `disinfectActionId` names; undefined for any other action id. */
export const parseDisinfectActionId = (actionId: string): { jobId: string; orderNo: number } | undefined => {
  const match = /^disinfect-(.+)-(\d+)$/.exec(actionId);
  return match?.[1] && match[2] ? { jobId: match[1], orderNo: Number(match[2]) } : undefined;
};
/** Instant actions of a job's commands carry the job id, so its state tells which job they were for. */
export const cancelActionPrefix = (jobId: string) => `cancel-${jobId}-`;
/** Whether `actionId` is one of the job's cancel actions. */
export const isCancelActionOf = (jobId: string, actionId: string): boolean => actionId.startsWith(cancelActionPrefix(jobId));

export const position = (pose: Pose | null, floorId: string | null): OrderNode['nodePosition'] =>
  pose && floorId ? { x: pose.x, y: pose.y, theta: pose.theta, mapId: floorId } : undefined;

/**
 * `start` is where the robot stands now (its last reported pose and floor); without one (a robot that never
 * reported a position) the order begins at the first room.
 */
export function buildOrder(
  jobId: string,
  orderUpdateId: number,
  rooms: readonly OrderRoom[],
  home: OrderHome,
  start: OrderHome = { floorId: null, pose: null },
): OrderBody {
  const sorted = [...rooms].sort((a, b) => a.orderNo - b.orderNo);
  const startPosition = position(start.pose, start.floorId);
  const nodes: OrderNode[] = startPosition
    ? [{ nodeId: START_NODE_ID, sequenceId: 0, released: true, nodePosition: startPosition, actions: [] }]
    : [];
  for (const room of sorted) {
    const nodePosition = position(room.entryPoint, room.floorId);
    nodes.push({
      nodeId: roomNodeId(room.orderNo, room.roomId),
      sequenceId: nodes.length * 2,
      released: true,
      ...(nodePosition ? { nodePosition } : {}),
      actions: [
        {
          actionType: UvdActionType.disinfect,
          actionId: disinfectActionId(jobId, room.orderNo),
          blockingType: 'HARD',
          actionParameters: [
            { key: 'room_id', value: room.roomId },
            { key: 'dose', value: room.dose },
            { key: 'ready', value: room.ready },
          ],
        },
      ],
    });
  }
  const homePosition = position(home.pose, home.floorId);
  nodes.push({
    nodeId: HOME_NODE_ID,
    sequenceId: nodes.length * 2,
    released: true,
    ...(homePosition ? { nodePosition: homePosition } : {}),
    actions: [],
  });
  return { orderId: jobId, orderUpdateId, nodes, edges: edgesBetween(nodes) };
}

/** The released edges `edge-{i}` joining consecutive nodes (sequence ids between theirs). */
export const edgesBetween = (nodes: readonly OrderNode[]): OrderEdge[] =>
  nodes.slice(1).map((node, index) => ({
    edgeId: `edge-${index}`,
    sequenceId: index * 2 + 1,
    released: true,
    startNodeId: nodes[index]?.nodeId ?? HOME_NODE_ID,
    endNodeId: node.nodeId,
    actions: [],
  }));

/** The node a robot reached last (VDA 5050 state lastNodeId, lastNodeSequenceId). */
export interface ReachedNode {
  nodeId: string;
  sequenceId: number;
}

/**
 * An update of a running order (VDA 5050 §6.6): `orderUpdateId` the next one, stitched at the node the robot
 * reached last, so it begins with that node (as it was) and holds only the nodes and edges after it; each
 * room's `uvd_disinfect` carries the room's readiness now (`ready`, by room id). `previous` is the order or
 * update the robot was last told. Without `reached` (this process has no state of the robot in this order yet)
 * the update holds the whole order: a robot that has moved on takes from it what lies ahead of it.
 */
export function buildOrderUpdate(
  previous: OrderBody,
  orderUpdateId: number,
  reached: ReachedNode | undefined,
  ready: ReadonlyMap<string, boolean>,
): OrderBody {
  const stitch = reached && previous.nodes.some((node) => node.nodeId === reached.nodeId && node.sequenceId === reached.sequenceId) ? reached.sequenceId : -1;
  const withReadiness = (action: VdaAction): VdaAction => {
    const roomId = action.actionParameters?.find((parameter) => parameter.key === 'room_id')?.value;
    const now = typeof roomId === 'string' ? ready.get(roomId) : undefined;
    if (action.actionType !== UvdActionType.disinfect || now === undefined) return action;
    const others = (action.actionParameters ?? []).filter((parameter) => parameter.key !== 'ready');
    return { ...action, actionParameters: [...others, { key: 'ready', value: now }] };
  };
  return {
    orderId: previous.orderId,
    orderUpdateId,
    nodes: previous.nodes
      .filter((node) => node.sequenceId >= stitch)
      .map((node) => (node.sequenceId === stitch ? node : { ...node, actions: node.actions.map(withReadiness) })),
    edges: previous.edges.filter((edge) => edge.sequenceId > stitch),
  };
}
