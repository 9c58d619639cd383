import { OrderMessage } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import { dropActionId, parseLoadActionId, pickActionId } from './commands.ts';
import { buildDeliveryOrder } from './order.ts';

const floorA = '00000000-0000-4000-8000-00000000000a';
const floorB = '00000000-0000-4000-8000-00000000000b';
const delivery = '00000000-0000-4000-8000-0000000000d1';
const pickupRoom = '00000000-0000-4000-8000-0000000000e1';
const dropoffRoom = '00000000-0000-4000-8000-0000000000e2';

const input = {
  deliveryId: delivery,
  dispatch: 2,
  orderUpdateId: 0,
  pickup: { roomId: pickupRoom, floorId: floorA, entryPoint: { x: 4, y: 1, theta: 0 } },
  dropoff: { roomId: dropoffRoom, floorId: floorB, entryPoint: { x: 9, y: 2, theta: 1.5 } },
  home: { floorId: floorA, pose: { x: 0, y: 0, theta: 0 } },
  start: { floorId: floorA, pose: { x: 1, y: 1, theta: 0 } },
};

describe('a delivery as a VDA 5050 order', () => {
  it('goes from where the robot stands to a HARD pick at the pickup, a HARD drop at the drop-off, then home', () => {
    const order = buildDeliveryOrder(input);
    expect(order.orderId).toBe(delivery);
    expect(order.nodes.map((node) => [node.nodeId, node.sequenceId, node.nodePosition?.mapId])).toEqual([
      ['start', 0, floorA],
      ['pickup', 2, floorA],
      ['dropoff', 4, floorB],
      ['home', 6, floorA],
    ]);
    expect(order.edges.map((edge) => [edge.startNodeId, edge.endNodeId, edge.sequenceId])).toEqual([
      ['start', 'pickup', 1],
      ['pickup', 'dropoff', 3],
      ['dropoff', 'home', 5],
    ]);
    const [pick] = order.nodes[1]?.actions ?? [];
    const [drop] = order.nodes[2]?.actions ?? [];
    expect(pick).toMatchObject({ actionType: 'pick', actionId: pickActionId(delivery, 2), blockingType: 'HARD' });
    expect(drop).toMatchObject({ actionType: 'drop', actionId: dropActionId(delivery, 2), blockingType: 'HARD' });
    expect(pick?.actionParameters).toEqual([
      { key: 'stationType', value: 'room' },
      { key: 'stationName', value: pickupRoom },
      { key: 'loadType', value: 'drawer' },
      { key: 'loadId', value: delivery },
    ]);
    expect(drop?.actionParameters?.find((p) => p.key === 'stationName')?.value).toBe(dropoffRoom);
    expect(parseLoadActionId(drop?.actionId ?? '')).toEqual({ kind: 'drop', deliveryId: delivery, attempt: 2 });
    // The order is a valid VDA 5050 order once the gateway adds the header.
    const header = { headerId: 1, timestamp: new Date().toISOString(), version: '2.0.0', manufacturer: 'm', serialNumber: 's' };
    expect(OrderMessage.safeParse({ ...header, ...order }).success).toBe(true);
  });

  it('begins at the pickup when the robot never reported where it stands', () => {
    const order = buildDeliveryOrder({ ...input, start: { floorId: null, pose: null } });
    expect(order.nodes.map((node) => node.nodeId)).toEqual(['pickup', 'dropoff', 'home']);
    expect(order.edges[0]).toMatchObject({ startNodeId: 'pickup', endNodeId: 'dropoff', sequenceId: 1 });
  });
});
