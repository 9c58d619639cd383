import { describe, expect, it } from 'vitest';
import type { InstantActionsMessage, OrderMessage, StateMessage, VdaAction } from '@uvd/contracts';
import { RobotModel } from './robot-model.ts';

const HOME = { x: 0, y: 0, theta: 0 };
const header = { headerId: 0, timestamp: '', version: '2.0.0', manufacturer: 'uvd', serialNumber: 'd' };
const PICK = 'pick-del-1';
const DROP = 'drop-del-1';

/** A delivery order as the server builds it: pickup at (2, 0) with pick, drop-off at (2, 3) with drop, then home. */
function deliveryOrder(mapId = 'floor', dropoffMapId = mapId): OrderMessage {
  const load = (actionType: string, actionId: string, room: string): VdaAction => ({
    actionType,
    actionId,
    blockingType: 'HARD',
    actionParameters: [
      { key: 'stationType', value: 'room' },
      { key: 'stationName', value: room },
      { key: 'loadType', value: 'drawer' },
      { key: 'loadId', value: 'del' },
    ],
  });
  const nodes: OrderMessage['nodes'] = [
    { nodeId: 'pickup', sequenceId: 0, released: true, nodePosition: { x: 2, y: 0, mapId }, actions: [load('pick', PICK, 'room-a')] },
    { nodeId: 'dropoff', sequenceId: 2, released: true, nodePosition: { x: 2, y: 3, mapId: dropoffMapId }, actions: [load('drop', DROP, 'room-b')] },
    { nodeId: 'home', sequenceId: 4, released: true, nodePosition: { ...HOME, mapId }, actions: [] },
  ];
  const edges: OrderMessage['edges'] = nodes.slice(1).map((node, i) => ({
    edgeId: `edge-${i}`,
    sequenceId: i * 2 + 1,
    released: true,
    startNodeId: nodes[i]?.nodeId ?? '',
    endNodeId: node.nodeId,
    actions: [],
  }));
  return { ...header, orderId: 'del', orderUpdateId: 0, nodes, edges };
}

const instant = (actionType: string, actionId: string, parameters: Record<string, string | number | boolean>): InstantActionsMessage => ({
  ...header,
  actions: [
    { actionType, actionId, blockingType: 'NONE', actionParameters: Object.entries(parameters).map(([key, value]) => ({ key, value })) },
  ],
});

const actionStatus = (state: StateMessage | ReturnType<RobotModel['state']>, actionId: string) =>
  state.actionStates.find((a) => a.actionId === actionId)?.actionStatus;
const info = (state: ReturnType<RobotModel['state']>, type: string) => (state.information ?? []).filter((i) => i.infoType === type);
const drawerOf = (state: ReturnType<RobotModel['state']>) => info(state, 'uvd_drawer')[0]?.infoReferences?.find((r) => r.referenceKey === 'state')?.referenceValue;

function atDropoff(options: { drawerOpenSeconds?: number } = {}): RobotModel {
  const model = new RobotModel({ mapId: 'floor', home: HOME, kind: 'delivery', ...options });
  model.receiveOrder(deliveryOrder());
  model.advance(10);
  model.confirmLoading();
  model.advance(20);
  return model;
}

describe('RobotModel, a delivery robot', () => {
  it('waits in its pick with the drawer open until loaded, in its drop with the drawer locked until the hand-off, then goes home', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME, kind: 'delivery', drawerOpenSeconds: 4 });
    expect(drawerOf(model.state())).toBe('closed');
    model.receiveOrder(deliveryOrder());
    model.advance(60);
    // At the pickup: the pick runs as long as nobody confirms the loading, however long that takes.
    expect(model.state()).toMatchObject({ lastNodeId: 'pickup', driving: false });
    expect(actionStatus(model.state(), PICK)).toBe('RUNNING');
    expect(drawerOf(model.state())).toBe('open');
    expect(model.waitingFor).toEqual({ kind: 'loading', actionId: PICK });

    model.receiveInstantActions(instant('uvd_loading_confirmed', 'loaded-1', { delivery_id: 'del', action_id: PICK }));
    expect(actionStatus(model.state(), 'loaded-1')).toBe('FINISHED');
    expect(actionStatus(model.state(), PICK)).toBe('FINISHED');
    expect(drawerOf(model.state())).toBe('closed');

    model.advance(60);
    expect(model.state()).toMatchObject({ lastNodeId: 'dropoff', agvPosition: { x: 2, y: 3 } });
    expect(actionStatus(model.state(), DROP)).toBe('RUNNING');
    expect(drawerOf(model.state())).toBe('closed');
    // A hand-off for another drop changes nothing.
    model.receiveInstantActions(instant('uvd_handoff_confirmed', 'handoff-0', { delivery_id: 'del', action_id: 'drop-other-1' }));
    expect(actionStatus(model.state(), 'handoff-0')).toBe('FAILED');
    expect(drawerOf(model.state())).toBe('closed');

    model.receiveInstantActions(instant('uvd_handoff_confirmed', 'handoff-1', { delivery_id: 'del', action_id: DROP }));
    expect(drawerOf(model.state())).toBe('open');
    model.advance(3.9);
    expect(actionStatus(model.state(), DROP)).toBe('RUNNING');
    model.advance(0.2);
    expect(actionStatus(model.state(), DROP)).toBe('FINISHED');
    expect(drawerOf(model.state())).toBe('closed');
    model.advance(60);
    expect(model.state()).toMatchObject({ lastNodeId: 'home', agvPosition: { x: 0, y: 0 }, nodeStates: [] });
  });

  it('finishes the pick with the button at the robot, and a loading confirmation while not waiting fails', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME, kind: 'delivery' });
    model.receiveOrder(deliveryOrder());
    expect(model.confirmLoading()).toBe(false);
    model.receiveInstantActions(instant('uvd_loading_confirmed', 'loaded-early', { delivery_id: 'del', action_id: PICK }));
    expect(actionStatus(model.state(), 'loaded-early')).toBe('FAILED');
    model.advance(10);
    expect(model.confirmLoading()).toBe(true);
    expect(actionStatus(model.state(), PICK)).toBe('FINISHED');
  });

  it('reports a PIN typed on its screen until answered, and remembers the answer', () => {
    const model = atDropoff();
    const first = model.enterPin('1111');
    expect(first).not.toBeNull();
    // One entry at a time: the next waits for the answer to this one.
    expect(model.enterPin('2222')).toBeNull();
    expect(info(model.state(), 'uvd_handoff_pin')[0]?.infoReferences).toEqual([
      { referenceKey: 'pin_attempt_id', referenceValue: first },
      { referenceKey: 'action_id', referenceValue: DROP },
      { referenceKey: 'pin', referenceValue: '1111' },
    ]);
    model.receiveInstantActions(instant('uvd_handoff_refused', 'refused-1', { delivery_id: 'del', pin_attempt_id: first ?? '', attempts_left: 2, locked: false }));
    expect(info(model.state(), 'uvd_handoff_pin')).toEqual([]);
    expect(model.pinEntries.at(-1)?.answer).toEqual({ accepted: false, attemptsLeft: 2, locked: false });
    expect(drawerOf(model.state())).toBe('closed');

    const second = model.enterPin('1234');
    model.receiveInstantActions(instant('uvd_handoff_confirmed', 'handoff-1', { delivery_id: 'del', action_id: DROP, pin_attempt_id: second ?? '' }));
    expect(model.pinEntries.at(-1)).toMatchObject({ pinAttemptId: second, answer: { accepted: true } });
    expect(drawerOf(model.state())).toBe('open');
  });

  it('takes no more PINs once the hand-off is locked', () => {
    const model = atDropoff();
    const attempt = model.enterPin('0000') ?? '';
    model.receiveInstantActions(instant('uvd_handoff_refused', 'refused-1', { delivery_id: 'del', pin_attempt_id: attempt, attempts_left: 0, locked: true }));
    expect(model.pinEntries.at(-1)?.answer).toEqual({ accepted: false, attemptsLeft: 0, locked: true });
    expect(model.enterPin('1234')).toBeNull();
    expect(actionStatus(model.state(), DROP)).toBe('RUNNING');
  });

  it('stops while its way is blocked, reporting uvd_path_blocked, and drives on when it clears', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME, kind: 'delivery' });
    model.receiveOrder(deliveryOrder());
    model.advance(1);
    const before = model.state().agvPosition;
    model.blockPath(5000);
    model.advance(2);
    expect(model.state()).toMatchObject({ driving: false, agvPosition: before });
    expect(model.state().errors).toContainEqual(expect.objectContaining({ errorType: 'uvd_path_blocked', errorLevel: 'WARNING' }));
    model.advance(3);
    expect(model.state().errors).toEqual([]);
    model.advance(10);
    expect(model.state()).toMatchObject({ lastNodeId: 'pickup' });
  });

  it('pauses its waiting action, and a cancel closes the drawer and ends the order', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME, kind: 'delivery' });
    model.receiveOrder(deliveryOrder());
    model.advance(10);
    model.receiveInstantActions(instant('startPause', 'pause-1', {}));
    expect(actionStatus(model.state(), PICK)).toBe('PAUSED');
    model.receiveInstantActions(instant('stopPause', 'resume-1', {}));
    expect(actionStatus(model.state(), PICK)).toBe('RUNNING');
    model.receiveInstantActions(instant('cancelOrder', 'cancel-1', {}));
    expect(model.state()).toMatchObject({ nodeStates: [] });
    expect(actionStatus(model.state(), PICK)).toBe('FAILED');
    expect(actionStatus(model.state(), DROP)).toBe('FAILED');
    expect(drawerOf(model.state())).toBe('closed');
  });

  it('keeps the dead man\'s switch: a lost link pauses it until resumed', () => {
    const model = new RobotModel({ mapId: 'floor', home: HOME, kind: 'delivery' });
    model.receiveOrder(deliveryOrder());
    model.advance(1);
    model.loseLink();
    const at = model.state().agvPosition;
    model.advance(10);
    expect(model.state()).toMatchObject({ paused: true, agvPosition: at });
    expect(model.state().errors).toContainEqual(expect.objectContaining({ errorType: 'uvd_link_lost' }));
  });

  it('fails a pick or drop on a disinfection robot, and a uvd_disinfect on a delivery robot, as unsupported', () => {
    const uvd = new RobotModel({ mapId: 'floor', home: HOME });
    uvd.receiveOrder(deliveryOrder());
    uvd.advance(100);
    expect(uvd.state().actionStates.map((a) => [a.actionStatus, a.resultDescription])).toEqual([['FAILED', 'unsupported'], ['FAILED', 'unsupported']]);
    expect(info(uvd.state(), 'uvd_drawer')).toEqual([]);
  });
});
