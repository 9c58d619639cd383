import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionMessage, FactsheetMessage, UVD_PROMPT_INFO_TYPE } from '@uvd/contracts';
import type { StateMessage } from '@uvd/contracts';
import { SimRobot } from './sim-robot.ts';
import type { SimRobotOptions } from './sim-robot.ts';
import { FakeServer, roomsOrder, startTestBroker } from './testing/test-broker.ts';
import type { TestBroker, TestRoom } from './testing/test-broker.ts';

const MAP = randomUUID();
const HOME = { x: 0, y: 0, theta: 0 };
let broker: TestBroker;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  broker = await startTestBroker();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
afterAll(async () => {
  await broker.close();
});

/** A robot and the raw client playing the server, both connected; torn down after the test. */
async function setup(options: Partial<SimRobotOptions> = {}) {
  const serialNumber = `sim-${randomUUID().slice(0, 8)}`;
  const server = await FakeServer.connect(broker.url, 'uvd', serialNumber);
  const robot = new SimRobot({ brokerUrl: broker.url, manufacturer: 'uvd', serialNumber, mapId: MAP, home: HOME, timeFactor: 100, tickMs: 20, ...options });
  await robot.start();
  cleanups.push(async () => {
    await robot.stop();
    await server.close();
  });
  return { robot, server };
}

const room = (x: number, y: number, extra: Partial<TestRoom> = {}): TestRoom => ({ roomId: randomUUID(), x, y, dose: 30, ...extra });
const action = (state: StateMessage, actionId: string) => state.actionStates.find((a) => a.actionId === actionId);
const statusOf = (state: StateMessage, actionId: string) => action(state, actionId)?.actionStatus;
const disinfectId = (jobId: string, orderNo: number) => `disinfect-${jobId}-${orderNo}`;

describe('SimRobot on the wire', () => {
  it('announces itself: connection ONLINE retained, a factsheet, then valid states at the interval with increasing headerIds', async () => {
    const { server } = await setup({ stateIntervalMs: 100 });
    const online = ConnectionMessage.parse(await server.waitFor('connection', () => true));
    expect(online.connectionState).toBe('ONLINE');
    FactsheetMessage.parse(await server.waitFor('factsheet', () => true));
    await server.waitForState((s) => s.headerId >= 4);
    const states = server.states();
    const ids = states.map((s) => s.headerId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const last = states.at(-1);
    expect(last).toMatchObject({ operatingMode: 'AUTOMATIC', driving: false, orderId: '', nodeStates: [], errors: [] });
    expect(last?.agvPosition).toMatchObject({ x: 0, y: 0, mapId: MAP, positionInitialized: true });
    expect(last?.batteryState).toMatchObject({ charging: true });

    // A late subscriber (the server restarting) still learns the robot is online from the retained message.
    const late = await FakeServer.connect(broker.url, 'uvd', last?.serialNumber ?? '');
    const retained = ConnectionMessage.parse(await late.waitFor('connection', () => true));
    expect(retained.connectionState).toBe('ONLINE');
    await late.close();
  });

  it('drives a 3-room order to completion: each room RUNNING then FINISHED, nodes reached in order, then home to charge', async () => {
    const { robot, server } = await setup();
    const jobId = randomUUID();
    const order = roomsOrder(jobId, MAP, [room(5, 0), room(5, 5), room(0, 5)], HOME);
    await server.sendOrder(order);
    const done = await server.waitForState((s) => s.orderId === jobId && s.nodeStates.length === 0 && s.lastNodeId === 'home', 15_000);
    expect(done.driving).toBe(false);
    expect(done.agvPosition).toMatchObject({ x: 0, y: 0, mapId: MAP });
    for (const orderNo of [1, 2, 3]) expect(statusOf(done, disinfectId(jobId, orderNo))).toBe('FINISHED');

    const states = server.states().filter((s) => s.orderId === jobId);
    for (const orderNo of [1, 2, 3]) {
      const id = disinfectId(jobId, orderNo);
      const running = states.findIndex((s) => statusOf(s, id) === 'RUNNING');
      const finished = states.findIndex((s) => statusOf(s, id) === 'FINISHED');
      expect(running).toBeGreaterThanOrEqual(0);
      expect(finished).toBeGreaterThan(running);
      // Disinfecting happens standing at the room's node.
      expect(states[running]).toMatchObject({ driving: false, lastNodeId: order.nodes[orderNo - 1]?.nodeId });
    }
    const visited = [...new Set(states.map((s) => s.lastNodeId))].filter((id) => id !== '');
    expect(visited).toEqual(order.nodes.map((n) => n.nodeId));
    expect(states.some((s) => s.driving && s.velocity?.vx !== undefined)).toBe(true);
    // Nodes and edges leave the state as they are passed.
    const atRoom2 = states.find((s) => s.lastNodeId === order.nodes[1]?.nodeId);
    expect(atRoom2?.nodeStates.map((n) => n.nodeId)).toEqual(order.nodes.slice(2).map((n) => n.nodeId));
    expect(atRoom2?.edgeStates.map((e) => e.edgeId)).toEqual(['edge-1', 'edge-2']);
    // 20 m driving and 3 × 60 s of UV-C drained the battery; at home it charges.
    expect(done.batteryState.batteryCharge).toBeLessThan(100);
    await server.waitForState((s) => s.headerId > done.headerId && s.batteryState.charging);
    expect(robot.model.hasOrder).toBe(false);
  });

  it('pauses and resumes: the running action is PAUSED and its time frozen, then RUNNING again to FINISHED', async () => {
    const { server } = await setup({ timeFactor: 50 });
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(1, 0, { dose: 50 })], HOME));
    const id = disinfectId(jobId, 1);
    await server.waitForState((s) => statusOf(s, id) === 'RUNNING');
    await server.sendInstantActions([{ actionType: 'startPause', actionId: 'pause-1', blockingType: 'HARD' }]);
    const paused = await server.waitForState((s) => s.paused === true);
    expect(statusOf(paused, id)).toBe('PAUSED');
    expect(statusOf(paused, 'pause-1')).toBe('FINISHED');
    // 100 s of dose at factor 50 is 2 s: a 2.5 s pause without the clock frozen would have finished it.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(server.states().some((s) => statusOf(s, id) === 'FINISHED')).toBe(false);
    await server.sendInstantActions([{ actionType: 'stopPause', actionId: 'resume-1', blockingType: 'HARD' }]);
    const resumed = await server.waitForState((s) => s.paused === false && statusOf(s, 'resume-1') === 'FINISHED');
    expect(statusOf(resumed, id)).toBe('RUNNING');
    await server.waitForState((s) => statusOf(s, id) === 'FINISHED', 10_000);
  }, 30_000);

  it('turns its lamp off when the link to the controller is lost, and stays paused after the link is back until the controller decides', async () => {
    const { robot, server } = await setup({ timeFactor: 50 });
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(1, 0, { dose: 50 }), room(2, 0, { dose: 50 })], HOME));
    const id = disinfectId(jobId, 1);
    await server.waitForState((s) => statusOf(s, id) === 'RUNNING');
    await robot.kill();
    // At once, not at the next state: the dead man's switch acts on the lost link itself.
    const atLoss = robot.model.state();
    expect(atLoss).toMatchObject({ paused: true, driving: false });
    expect(atLoss.actionStates.find((a) => a.actionId === id)?.actionStatus).toBe('PAUSED');

    await robot.start();
    const back = await server.waitForState((s) => s.errors.some((error) => error.errorType === 'uvd_link_lost'));
    expect(back.paused).toBe(true);
    expect(statusOf(back, id)).toBe('PAUSED');
    // 100 s of dose at factor 50 is 2 s: a robot that carried on would have finished the room.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(server.states().some((s) => statusOf(s, id) === 'FINISHED')).toBe(false);

    await server.sendInstantActions([{ actionType: 'cancelOrder', actionId: 'cancel-lost', blockingType: 'HARD' }]);
    const cancelled = await server.waitForState((s) => statusOf(s, 'cancel-lost') === 'FINISHED');
    expect(action(cancelled, id)).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'aborted' });
    expect(cancelled.paused).toBe(false);
    expect(cancelled.errors.some((error) => error.errorType === 'uvd_link_lost')).toBe(false);
  }, 30_000);

  it('goes on with its order when the controller resumes it after the link came back', async () => {
    const { robot, server } = await setup({ timeFactor: 50 });
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(1, 0, { dose: 50 })], HOME));
    const id = disinfectId(jobId, 1);
    await server.waitForState((s) => statusOf(s, id) === 'RUNNING');
    await robot.kill();
    await robot.start();
    await server.waitForState((s) => s.paused === true && s.errors.some((error) => error.errorType === 'uvd_link_lost'));
    await server.sendInstantActions([{ actionType: 'stopPause', actionId: 'resume-lost', blockingType: 'HARD' }]);
    const resumed = await server.waitForState((s) => statusOf(s, 'resume-lost') === 'FINISHED');
    expect(resumed.paused).toBe(false);
    expect(resumed.errors).toEqual([]);
    await server.waitForState((s) => statusOf(s, id) === 'FINISHED', 10_000);
  }, 30_000);

  it('cancels in the middle of a room: the room and the rooms after it fail aborted, the robot stops where it is', async () => {
    const { server } = await setup();
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(3, 0, { dose: 1000 }), room(6, 0)], HOME));
    await server.waitForState((s) => statusOf(s, disinfectId(jobId, 1)) === 'RUNNING');
    await server.sendInstantActions([{ actionType: 'cancelOrder', actionId: 'cancel-1', blockingType: 'HARD' }]);
    const cancelled = await server.waitForState((s) => statusOf(s, 'cancel-1') === 'FINISHED');
    expect(action(cancelled, disinfectId(jobId, 1))).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'aborted' });
    expect(action(cancelled, disinfectId(jobId, 2))).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'aborted' });
    expect(cancelled).toMatchObject({ orderId: jobId, nodeStates: [], edgeStates: [], driving: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = server.states().at(-1);
    expect(later?.agvPosition).toMatchObject({ x: 3, y: 0 });
    // Nothing left to cancel.
    await server.sendInstantActions([{ actionType: 'cancelOrder', actionId: 'cancel-2', blockingType: 'HARD' }]);
    const second = await server.waitForState((s) => action(s, 'cancel-2') !== undefined);
    expect(action(second, 'cancel-2')).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'no_order' });
  });

  it('stops before a room that is not ready and prompts wait_to_enter: skip records not_ready, confirm disinfects', async () => {
    const { server } = await setup();
    const jobId = randomUUID();
    const first = room(2, 0, { ready: false });
    const second = room(4, 0, { ready: false });
    await server.sendOrder(roomsOrder(jobId, MAP, [first, second], HOME));
    const promptOf = (s: StateMessage) => s.information?.find((i) => i.infoType === UVD_PROMPT_INFO_TYPE);
    const ref = (s: StateMessage, key: string) => promptOf(s)?.infoReferences?.find((r) => r.referenceKey === key)?.referenceValue;

    const asked = await server.waitForState((s) => ref(s, 'room_id') === first.roomId);
    expect(promptOf(asked)).toMatchObject({ infoLevel: 'INFO', infoDescription: 'wait_to_enter' });
    expect(ref(asked, 'button')).toBe('wait_to_enter');
    expect(asked).toMatchObject({ driving: false, lastNodeId: `room-1-${first.roomId}` });
    expect(statusOf(asked, disinfectId(jobId, 1))).toBe('WAITING');
    // The robot waits as long as nobody answers; a decision for another prompt changes nothing.
    await server.sendInstantActions([
      { actionType: 'uvd_operator_decision', actionId: 'd-0', blockingType: 'NONE', actionParameters: [{ key: 'prompt_id', value: 'nope' }, { key: 'confirm', value: true }] },
    ]);
    const refused = await server.waitForState((s) => action(s, 'd-0') !== undefined);
    expect(action(refused, 'd-0')).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'unknown_prompt' });
    expect(ref(refused, 'room_id')).toBe(first.roomId);

    const skip = ref(asked, 'prompt_id') ?? '';
    await server.sendInstantActions([
      { actionType: 'uvd_operator_decision', actionId: 'd-1', blockingType: 'NONE', actionParameters: [{ key: 'prompt_id', value: skip }, { key: 'confirm', value: false }] },
    ]);
    const skipped = await server.waitForState((s) => statusOf(s, disinfectId(jobId, 1)) === 'FAILED');
    expect(action(skipped, disinfectId(jobId, 1))?.resultDescription).toBe('not_ready');

    const askedAgain = await server.waitForState((s) => ref(s, 'room_id') === second.roomId);
    const confirm = ref(askedAgain, 'prompt_id') ?? '';
    expect(confirm).not.toBe(skip);
    await server.sendInstantActions([
      { actionType: 'uvd_operator_decision', actionId: 'd-2', blockingType: 'NONE', actionParameters: [{ key: 'prompt_id', value: confirm }, { key: 'confirm', value: true }] },
    ]);
    const entered = await server.waitForState((s) => statusOf(s, disinfectId(jobId, 2)) === 'RUNNING');
    expect(promptOf(entered)).toBeUndefined();
    await server.waitForState((s) => statusOf(s, disinfectId(jobId, 2)) === 'FINISHED' && s.lastNodeId === 'home');
  });

  it('fails an unreachable room with not_reached and carries on with the next', async () => {
    const blocked = room(5, 5);
    const { server } = await setup({ unreachableNodes: [blocked.roomId] });
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(5, 0), blocked, room(0, 5)], HOME));
    const done = await server.waitForState((s) => s.lastNodeId === 'home', 15_000);
    expect(statusOf(done, disinfectId(jobId, 1))).toBe('FINISHED');
    expect(action(done, disinfectId(jobId, 2))).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'not_reached' });
    expect(statusOf(done, disinfectId(jobId, 3))).toBe('FINISHED');
    expect(server.states().some((s) => s.lastNodeId === `room-2-${blocked.roomId}`)).toBe(false);
  });

  it('answers a ping in the state that follows it at once', async () => {
    const { server } = await setup({ timeFactor: 1, stateIntervalMs: 5000 });
    await server.waitForState(() => true);
    const sentAt = Date.now();
    await server.sendInstantActions([
      { actionType: 'uvd_ping', actionId: 'ping-1', blockingType: 'NONE', actionParameters: [{ key: 'sent_at', value: sentAt }] },
    ]);
    const answer = await server.waitForState((s) => statusOf(s, 'ping-1') === 'FINISHED');
    // Far below the 5 s state interval: the ping is answered by an immediate state.
    expect(Date.now() - sentAt).toBeLessThan(1000);
    expect(action(answer, 'ping-1')?.actionType).toBe('uvd_ping');
  });

  it('leaves CONNECTIONBROKEN as its last will when the connection drops, and OFFLINE when it stops cleanly', async () => {
    const { robot, server } = await setup();
    await server.waitFor('connection', (m) => ConnectionMessage.parse(m).connectionState === 'ONLINE');
    await robot.kill();
    const will = ConnectionMessage.parse(await server.waitFor('connection', (m) => ConnectionMessage.parse(m).connectionState === 'CONNECTIONBROKEN'));
    expect(will.serialNumber).toBe(robot.serialNumber);

    const { robot: other, server: otherServer } = await setup();
    await other.stop();
    await otherServer.waitFor('connection', (m) => ConnectionMessage.parse(m).connectionState === 'OFFLINE');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(otherServer.messages.some((m) => m.topic === 'connection' && ConnectionMessage.parse(m.json).connectionState === 'CONNECTIONBROKEN')).toBe(false);
  });

  it('ignores a duplicated order and a duplicated instant action: each has exactly one effect', async () => {
    const { robot, server } = await setup();
    const jobId = randomUUID();
    const order = roomsOrder(jobId, MAP, [room(2, 0), room(4, 0, { dose: 300 })], HOME);
    await server.sendOrder(order);
    await server.waitForState((s) => statusOf(s, disinfectId(jobId, 1)) === 'FINISHED');
    await server.sendOrder(order);
    await server.sendOrder({ ...order, orderUpdateId: 0 });
    await server.waitForState((s) => statusOf(s, disinfectId(jobId, 2)) === 'RUNNING');
    expect(robot.counters.ignoredOrders).toBe(2);
    // Room 1 stays done: the robot did not start the order over.
    const states = server.states().filter((s) => s.orderId === jobId);
    const firstDone = states.findIndex((s) => statusOf(s, disinfectId(jobId, 1)) === 'FINISHED');
    expect(states.slice(firstDone).every((s) => statusOf(s, disinfectId(jobId, 1)) === 'FINISHED')).toBe(true);

    const pause = { actionType: 'startPause', actionId: 'pause-dup', blockingType: 'HARD' as const };
    await server.sendInstantActions([pause]);
    await server.waitForState((s) => s.paused === true);
    await server.sendInstantActions([{ actionType: 'stopPause', actionId: 'resume-dup', blockingType: 'HARD' }]);
    const resumed = await server.waitForState((s) => statusOf(s, 'resume-dup') === 'FINISHED');
    await server.sendInstantActions([pause]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = server.states().filter((s) => s.headerId > resumed.headerId);
    expect(after.every((s) => s.paused === false)).toBe(true);
  });

  it('drops malformed messages and keeps running', async () => {
    const { robot, server } = await setup();
    await server.sendRaw('order', 'not json');
    await server.sendRaw('instantActions', JSON.stringify({ actions: 'nope' }));
    await server.sendRaw('order', JSON.stringify({ ...roomsOrder('x', MAP, [], HOME), headerId: 1, timestamp: '', version: '2.0.0', manufacturer: 'uvd', serialNumber: 'someone-else' }));
    await server.sendInstantActions([{ actionType: 'uvd_ping', actionId: 'alive', blockingType: 'NONE' }]);
    await server.waitForState((s) => statusOf(s, 'alive') === 'FINISHED');
    expect(robot.counters.rejectedMessages).toBe(3);
    expect(robot.model.hasOrder).toBe(false);
  });

  it('goes home to charge when its battery runs low: finishes the room, gives up the rest, reports it', async () => {
    const { server } = await setup({ battery: 21, batteryRates: { driving: 0.5, disinfecting: 0.5, idle: 0, charging: 1 } });
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(2, 0), room(4, 0), room(6, 0)], HOME));
    const done = await server.waitForState((s) => s.lastNodeId === 'home', 15_000);
    expect(statusOf(done, disinfectId(jobId, 1))).toBe('FINISHED');
    expect(action(done, disinfectId(jobId, 2))).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'not_reached' });
    expect(action(done, disinfectId(jobId, 3))).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'not_reached' });
    expect(server.states().some((s) => s.errors.some((e) => e.errorType === 'uvd_low_battery'))).toBe(true);
    const charging = await server.waitForState((s) => s.headerId > done.headerId && s.batteryState.charging);
    expect(charging.agvPosition).toMatchObject({ x: 0, y: 0 });
  });

  it('refuses orders outside automatic mode and reports why', async () => {
    const { robot, server } = await setup();
    robot.setOperatingMode('MANUAL');
    await server.sendOrder(roomsOrder(randomUUID(), MAP, [room(1, 0)], HOME));
    const refused = await server.waitForState((s) => s.errors.some((e) => e.errorType === 'orderError'));
    expect(refused).toMatchObject({ operatingMode: 'MANUAL', orderId: '', driving: false });
    expect(robot.counters.ignoredOrders).toBe(1);
  });

  it('goes home on uvd_go_home, abandoning its order, and reports the action FINISHED on arrival', async () => {
    const { server } = await setup();
    const jobId = randomUUID();
    await server.sendOrder(roomsOrder(jobId, MAP, [room(4, 0, { dose: 1000 })], HOME));
    await server.waitForState((s) => statusOf(s, disinfectId(jobId, 1)) === 'RUNNING');
    await server.sendInstantActions([{ actionType: 'uvd_go_home', actionId: 'home-1', blockingType: 'HARD' }]);
    const running = await server.waitForState((s) => statusOf(s, 'home-1') === 'RUNNING');
    expect(action(running, disinfectId(jobId, 1))).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'aborted' });
    const home = await server.waitForState((s) => statusOf(s, 'home-1') === 'FINISHED');
    expect(home.agvPosition).toMatchObject({ x: 0, y: 0 });
  });
});
