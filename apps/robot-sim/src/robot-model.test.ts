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

  describe('a room set not ready during the order', () => {
    // Room 1 at 2 m (4 s away), a dose of 10 J/m² at 0.5 W/m² (20 s of UV-C); room 2 at 4 m.
    const job = () => roomsOrder('job', 'floor', [{ roomId: 'r1', x: 2, y: 0, dose: 10 }, { roomId: 'r2', x: 4, y: 0, dose: 10 }], HOME);
    const notReady = (actionId: string, roomId: string, id = 'nr-1') => ({
      ...header,
      actions: [
        {
          actionType: 'uvd_room_not_ready',
          actionId: id,
          blockingType: 'HARD' as const,
          actionParameters: [
            { key: 'room_id', value: roomId },
            { key: 'action_id', value: actionId },
          ],
        },
      ],
    });
    const decide = (promptId: string, confirm: boolean) => ({
      ...header,
      actions: [
        {
          actionType: 'uvd_operator_decision',
          actionId: `decision-${String(confirm)}`,
          blockingType: 'NONE' as const,
          actionParameters: [
            { key: 'prompt_id', value: promptId },
            { key: 'confirm', value: confirm },
          ],
        },
      ],
    });
    const room1 = (model: RobotModel) => model.state().actionStates.find((a) => a.actionId === 'disinfect-job-1');

    it('turns the lamp off at once, asks wait_to_enter, and on confirm gives only the dose still due', () => {
      const model = new RobotModel({ mapId: 'floor', home: HOME });
      model.receiveOrder(order(job()));
      model.advance(4 + 15); // 15 of room 1's 20 s of UV-C given
      expect(room1(model)?.actionStatus).toBe('RUNNING');
      model.receiveInstantActions(notReady('disinfect-job-1', 'r1'));
      expect(room1(model)?.actionStatus).toBe('PAUSED');
      expect(model.state()).toMatchObject({ lastNodeId: 'room-1-r1', driving: false });
      const prompt = model.prompt;
      expect(prompt).toMatchObject({ roomId: 'r1', actionId: 'disinfect-job-1' });
      expect(model.state().actionStates.find((a) => a.actionId === 'nr-1')?.actionStatus).toBe('FINISHED');
      // However long nobody answers, the lamp stays off and the robot stays.
      model.advance(100);
      expect(room1(model)?.actionStatus).toBe('PAUSED');
      model.receiveInstantActions(decide(prompt?.promptId ?? '', true));
      expect(room1(model)?.actionStatus).toBe('RUNNING');
      model.advance(4.9);
      expect(room1(model)?.actionStatus).toBe('RUNNING');
      model.advance(0.2);
      expect(room1(model)?.actionStatus).toBe('FINISHED');
    });

    it('asks at a room ahead set not ready by an instant action while the robot drives to it, and skip fails it not_ready', () => {
      const model = new RobotModel({ mapId: 'floor', home: HOME });
      model.receiveOrder(order(job()));
      model.advance(2); // halfway to room 1
      model.receiveInstantActions(notReady('disinfect-job-1', 'r1'));
      model.advance(10);
      expect(room1(model)?.actionStatus).toBe('WAITING');
      const prompt = model.prompt;
      expect(prompt).toMatchObject({ roomId: 'r1' });
      model.receiveInstantActions(decide(prompt?.promptId ?? '', false));
      expect(room1(model)).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'not_ready' });
    });

    it('refuses an uvd_room_not_ready without an order, or naming no action of the order', () => {
      const model = new RobotModel({ mapId: 'floor', home: HOME });
      model.receiveInstantActions(notReady('disinfect-job-1', 'r1', 'nr-a'));
      model.receiveOrder(order(job()));
      model.receiveInstantActions(notReady('disinfect-other-1', 'r1', 'nr-b'));
      const reported = model.state().actionStates.filter((a) => a.actionType === 'uvd_room_not_ready');
      expect(reported.map((a) => [a.actionId, a.actionStatus, a.resultDescription])).toEqual([
        ['nr-a', 'FAILED', 'no_order'],
        ['nr-b', 'FAILED', 'unknown_action'],
      ]);
    });

    it('takes an order update marking a room ahead not ready: it asks there and never turns its lamp on', () => {
      const model = new RobotModel({ mapId: 'floor', home: HOME });
      const first = job();
      model.receiveOrder(order(first));
      model.advance(4 + 21); // room 1 done, on the way to room 2
      const [room1Node, room2Node, home] = first.nodes;
      if (!room1Node || !room2Node || !home) throw new Error('order without nodes');
      const notReadyRoom2 = {
        ...room2Node,
        actions: room2Node.actions.map((a) => ({ ...a, actionParameters: [...(a.actionParameters ?? []).filter((p) => p.key !== 'ready'), { key: 'ready', value: false }] })),
      };
      expect(model.receiveOrder(order({ orderId: 'job', orderUpdateId: 1, nodes: [room1Node, notReadyRoom2, home], edges: first.edges.slice(1) }))).toBe(true);
      model.advance(100);
      expect(model.prompt).toMatchObject({ roomId: 'r2' });
      expect(model.state().actionStates.find((a) => a.actionId === 'disinfect-job-2')?.actionStatus).toBe('WAITING');
    });

    it('applies an update stitched at a node it has passed since from where it is, and refuses one that does not fit', () => {
      const model = new RobotModel({ mapId: 'floor', home: HOME });
      const first = job();
      model.receiveOrder(order(first));
      model.advance(4 + 20 + 4 + 1); // room 1 done, room 2 reached and running
      const [room1Node, room2Node, home] = first.nodes;
      if (!room1Node || !room2Node || !home) throw new Error('order without nodes');
      // Stitched at room 1 (the sender had not heard of room 2 yet): room 2 is not visited again.
      expect(model.receiveOrder(order({ orderId: 'job', orderUpdateId: 1, nodes: [room1Node, room2Node, home], edges: first.edges }))).toBe(true);
      expect(model.state()).toMatchObject({ orderUpdateId: 1, lastNodeId: 'room-2-r2', nodeStates: [{ nodeId: 'home' }] });
      // A first node the order never had: refused, reported, and nothing changes.
      const stranger = { ...home, nodeId: 'elsewhere', sequenceId: 2 };
      expect(model.receiveOrder(order({ orderId: 'job', orderUpdateId: 2, nodes: [stranger, home], edges: [] }))).toBe(false);
      expect(model.state()).toMatchObject({ orderUpdateId: 1, nodeStates: [{ nodeId: 'home' }] });
      expect(model.state().errors).toContainEqual(
        expect.objectContaining({
          errorType: 'orderUpdateError',
          errorReferences: [
            { referenceKey: 'orderId', referenceValue: 'job' },
            { referenceKey: 'orderUpdateId', referenceValue: '2' },
          ],
        }),
      );
      model.advance(100);
      expect(statuses(model.state())).toEqual([['FINISHED', undefined], ['FINISHED', undefined]]);
    });
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
