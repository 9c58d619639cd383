import { describe, expect, it } from 'vitest';
import type { OrderMessage, StateMessage } from '@uvd/contracts';
import { RobotModel } from './robot-model.ts';
import { roomsOrder } from './testing/test-broker.ts';

const HOME = { x: 0, y: 0, theta: 0 };
const header = { headerId: 0, timestamp: '', version: '2.0.0', manufacturer: 'uvd', serialNumber: 'm' };
const order = (o: Pick<OrderMessage, 'orderId' | 'orderUpdateId' | 'nodes' | 'edges'>): OrderMessage => ({ ...header, ...o });
const statuses = (state: Pick<StateMessage, 'actionStates'>) => state.actionStates.map((a) => [a.actionStatus, a.resultDescription]);

describe('RobotModel', () => {
  it('reaches the same end whether time passes in one step or in many (the time factor changes nothing but speed)', () => {
    const job = roomsOrder('job', 'floor', [
      { roomId: 'r1', x: 4, y: 0, dose: 30 },
      { roomId: 'r2', x: 4, y: 3, dose: 15 },
    ], HOME);
    const coarse = new RobotModel({ mapId: 'floor', home: HOME });
    const fine = new RobotModel({ mapId: 'floor', home: HOME });
    coarse.receiveOrder(order(job));
    fine.receiveOrder(order(job));
    coarse.advance(500);
    for (let i = 0; i < 5000; i++) fine.advance(0.1);
    expect(statuses(coarse.state())).toEqual([['FINISHED', undefined], ['FINISHED', undefined]]);
    expect(coarse.state()).toMatchObject({ lastNodeId: 'home', nodeStates: [], driving: false, batteryState: { charging: true } });
    expect(fine.state()).toMatchObject({ lastNodeId: 'home', nodeStates: [], agvPosition: coarse.state().agvPosition });
    // 4 + 3 + 5 m at 0.5 m/s and 60 + 30 s of UV-C: done after 114 s, not before.
    const timed = new RobotModel({ mapId: 'floor', home: HOME });
    timed.receiveOrder(order(job));
    timed.advance(113);
    expect(timed.state().lastNodeId).not.toBe('home');
    timed.advance(1.01);
    expect(timed.state().lastNodeId).toBe('home');
  });

  it('fails rooms at random with faultRate, never the way home', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME, faultRate: 0.5, random: () => 0.2 });
    model.receiveOrder(order(roomsOrder('job', 'floor', [{ roomId: 'r1', x: 2, y: 0, dose: 1 }, { roomId: 'r2', x: 4, y: 0, dose: 1 }], HOME)));
    model.advance(100);
    expect(statuses(model.state())).toEqual([['FAILED', 'not_reached'], ['FAILED', 'not_reached']]);
    expect(model.state()).toMatchObject({ lastNodeId: 'home', agvPosition: { x: 0, y: 0 } });
  });

  it('rides the elevator to a node on another floor', () => {
    const model = new RobotModel({ mapId: 'floor-1', home: HOME, elevatorSeconds: 20 });
    model.receiveOrder(order(roomsOrder('job', 'floor-2', [{ roomId: 'r1', x: 1, y: 0, dose: 1000 }], HOME)));
    model.advance(19);
    expect(model.state()).toMatchObject({ driving: true, agvPosition: { mapId: 'floor-1', x: 0 } });
    model.advance(2);
    expect(model.state()).toMatchObject({ agvPosition: { mapId: 'floor-2', x: 1 }, lastNodeId: 'room-1-r1' });
  });

  it('takes an order update stitched at the last node reached, keeping what is done', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME });
    const first = roomsOrder('job', 'floor', [{ roomId: 'r1', x: 1, y: 0, dose: 1000 }, { roomId: 'r2', x: 2, y: 0, dose: 1 }], HOME);
    model.receiveOrder(order(first));
    model.advance(10); // at room 1, disinfecting
    const [room1, , home] = first.nodes;
    if (!room1 || !home) throw new Error('order without nodes');
    const update = { orderId: 'job', orderUpdateId: 1, nodes: [room1, { ...home, sequenceId: 2 }], edges: [] };
    expect(model.receiveOrder(order(update))).toBe(true);
    expect(model.receiveOrder(order(update))).toBe(false);
    expect(model.state().nodeStates.map((n) => n.nodeId)).toEqual(['home']);
    model.advance(3000);
    // Room 2 was left out by the update: never visited, its action reported aborted.
    expect(statuses(model.state())).toEqual([['FINISHED', undefined], ['FAILED', 'aborted']]);
    expect(model.state()).toMatchObject({ lastNodeId: 'home', orderUpdateId: 1 });
  });

  it('has its lamp on only while a room is disinfected and the robot is not paused, naming that room', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME });
    const lamp = () => [model.lampOn, model.lampRoomId];
    model.receiveOrder(order(roomsOrder('job', 'floor', [
      { roomId: 'r1', x: 1, y: 0, dose: 30 },
      { roomId: 'r2', x: 2, y: 0, dose: 30, ready: false },
    ], HOME)));
    expect(lamp()).toEqual([false, null]);
    model.advance(1); // driving: 1 m at 0.5 m/s takes 2 s
    expect(lamp()).toEqual([false, null]);
    model.advance(2); // at room 1, 1 s into 60 s of UV-C
    expect(lamp()).toEqual([true, 'r1']);
    model.receiveInstantActions({ ...header, actions: [{ actionId: 'p', actionType: 'startPause', blockingType: 'HARD' }] });
    expect(lamp()).toEqual([false, null]);
    model.receiveInstantActions({ ...header, actions: [{ actionId: 'r', actionType: 'stopPause', blockingType: 'HARD' }] });
    expect(lamp()).toEqual([true, 'r1']);
    model.advance(62); // room 1 done, at room 2, which is not ready: the robot waits outside with its lamp off
    expect(model.prompt?.roomId).toBe('r2');
    expect(lamp()).toEqual([false, null]);
    const prompt = model.prompt?.promptId ?? '';
    model.receiveInstantActions({ ...header, actions: [{
      actionId: 'd',
      actionType: 'uvd_operator_decision',
      blockingType: 'HARD',
      actionParameters: [{ key: 'prompt_id', value: prompt }, { key: 'confirm', value: true }],
    }] });
    expect(lamp()).toEqual([true, 'r2']);
    model.receiveInstantActions({ ...header, actions: [{ actionId: 'c', actionType: 'cancelOrder', blockingType: 'HARD' }] });
    expect(lamp()).toEqual([false, null]);
  });
});
