import { describe, expect, it } from 'vitest';
import { OrderMessage, StateMessage, type ActionState } from '@uvd/contracts';
import { baseState } from '../testing/fleet-fixtures.ts';
import { buildOrder, disinfectActionId } from './order.ts';
import { orderOf, promptsOf, readState, statusOf, supersedes } from './events.ts';
import { completionStatus, reduceProgress, worthRecording, type JobSnapshot } from './job-reducer.ts';

const jobId = '00000000-0000-4000-8000-000000000001';
const floorId = '00000000-0000-4000-8000-0000000000f1';
const roomIds = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2', '00000000-0000-4000-8000-0000000000a3'];

function state(overrides: Partial<StateMessage> = {}): StateMessage {
  return StateMessage.parse({ ...baseState('uvd', 'SN-1'), headerId: 1, orderId: jobId, ...overrides });
}

/** What the gateway hands to execution of such a state. */
const order = (overrides: Partial<StateMessage> = {}) => orderOf(state(overrides));

const action = (orderNo: number, actionStatus: ActionState['actionStatus'], resultDescription?: string): ActionState => ({
  actionId: disinfectActionId(jobId, orderNo),
  actionType: 'uvd_disinfect',
  actionStatus,
  ...(resultDescription ? { resultDescription } : {}),
});

const snapshot = (...states: JobSnapshot['rooms'][number]['state'][]): JobSnapshot => ({
  jobId,
  activeState: 'disinfecting',
  rooms: states.map((roomState, orderNo) => ({ orderNo, state: roomState })),
});

describe('buildOrder', () => {
  it('makes one node per room at its entry point with a disinfect action, then home, all released', () => {
    const order = buildOrder(
      jobId,
      0,
      [1, 0].map((orderNo) => ({
        orderNo,
        roomId: roomIds[orderNo] ?? '',
        dose: 20 + orderNo,
        floorId,
        entryPoint: { x: orderNo * 5 + 2, y: 2, theta: 0 },
        ready: orderNo === 0,
      })),
      { floorId, pose: { x: 0, y: 0, theta: 1 } },
    );
    // The header is the gateway's; the rest must be a valid VDA 5050 order.
    OrderMessage.parse({ ...order, headerId: 0, timestamp: '', version: '2.0.0', manufacturer: 'uvd', serialNumber: 'x' });
    expect(order.orderId).toBe(jobId);
    expect(order.nodes.map((node) => node.nodeId)).toEqual([`room-0-${roomIds[0]}`, `room-1-${roomIds[1]}`, 'home']);
    expect(order.nodes.map((node) => node.sequenceId)).toEqual([0, 2, 4]);
    expect(order.edges.map((edge) => [edge.edgeId, edge.sequenceId, edge.startNodeId, edge.endNodeId])).toEqual([
      ['edge-0', 1, `room-0-${roomIds[0]}`, `room-1-${roomIds[1]}`],
      ['edge-1', 3, `room-1-${roomIds[1]}`, 'home'],
    ]);
    expect(order.nodes.every((node) => node.released) && order.edges.every((edge) => edge.released)).toBe(true);
    expect(order.nodes[1]?.nodePosition).toEqual({ x: 7, y: 2, theta: 0, mapId: floorId });
    expect(order.nodes[1]?.actions).toEqual([
      {
        actionType: 'uvd_disinfect',
        actionId: disinfectActionId(jobId, 1),
        blockingType: 'HARD',
        actionParameters: [
          { key: 'room_id', value: roomIds[1] },
          { key: 'dose', value: 21 },
          { key: 'ready', value: false },
        ],
      },
    ]);
    expect(order.nodes[2]).toMatchObject({ nodeId: 'home', actions: [], nodePosition: { x: 0, y: 0, mapId: floorId } });
  });

  it('begins where the robot stands, so a standard robot accepts the order (VDA 5050: first node within deviation range)', () => {
    const order = buildOrder(
      jobId,
      0,
      [{ orderNo: 0, roomId: roomIds[0] ?? '', dose: 10, floorId, entryPoint: { x: 5, y: 2, theta: 0 }, ready: true }],
      { floorId, pose: { x: 0, y: 0, theta: 0 } },
      { floorId, pose: { x: 1.5, y: -2, theta: 0.5 } },
    );
    OrderMessage.parse({ ...order, headerId: 0, timestamp: '', version: '2.0.0', manufacturer: 'uvd', serialNumber: 'x' });
    expect(order.nodes.map((node) => [node.nodeId, node.sequenceId, node.actions.length])).toEqual([
      ['start', 0, 0],
      [`room-0-${roomIds[0]}`, 2, 1],
      ['home', 4, 0],
    ]);
    expect(order.nodes[0]?.nodePosition).toEqual({ x: 1.5, y: -2, theta: 0.5, mapId: floorId });
    expect(order.edges.map((edge) => [edge.sequenceId, edge.startNodeId, edge.endNodeId])).toEqual([
      [1, 'start', `room-0-${roomIds[0]}`],
      [3, `room-0-${roomIds[0]}`, 'home'],
    ]);
  });

  it('leaves out the position of a room without entry point and of a robot without home', () => {
    const order = buildOrder(jobId, 3, [{ orderNo: 0, roomId: roomIds[0] ?? '', dose: 10, floorId, entryPoint: null, ready: true }], {
      floorId: null,
      pose: null,
    });
    expect(order.orderUpdateId).toBe(3);
    expect(order.nodes.map((node) => node.nodePosition)).toEqual([undefined, undefined]);
  });
});

describe('reduceProgress', () => {
  it('ignores a state of another order', () => {
    expect(reduceProgress(snapshot('pending'), order({ orderId: '' }))).toBeUndefined();
  });

  it('moves rooms from pending to active to done and ends with completed once every room is final', () => {
    const first = reduceProgress(snapshot('pending', 'pending', 'pending'), order({ actionStates: [action(0, 'RUNNING'), action(1, 'WAITING')] }));
    expect(first).toMatchObject({ changed: [0], ended: false, activeState: 'disinfecting', completionStatus: undefined });
    expect(first?.rooms.map((room) => room.state)).toEqual(['active', 'pending', 'pending']);

    const last = reduceProgress(
      snapshot('done', 'not_ready', 'active'),
      order({ actionStates: [action(0, 'FINISHED'), action(1, 'FAILED', 'not_ready'), action(2, 'FINISHED')] }),
    );
    expect(last).toMatchObject({ changed: [2], ended: true, completionStatus: 'completed' });
  });

  it('records why a room failed, and a final state never changes', () => {
    const progress = reduceProgress(
      snapshot('pending', 'done', 'pending'),
      order({ actionStates: [action(0, 'FAILED', 'not_reached'), action(1, 'FAILED', 'aborted'), action(2, 'FAILED', 'something else')] }),
    );
    expect(progress?.rooms.map((room) => room.state)).toEqual(['not_reached', 'done', 'not_reached']);
    expect(progress?.completionStatus).toBe('failed');
  });

  it('reports paused from state.paused', () => {
    expect(reduceProgress(snapshot('active'), order({ paused: true }))?.activeState).toBe('paused');
  });

  it('ends a cancelled order as aborted: the room whose lamp ran is aborted, the one never begun not reached', () => {
    const progress = reduceProgress(
      snapshot('done', 'active', 'pending'),
      order({
        actionStates: [
          action(0, 'FINISHED'),
          action(1, 'RUNNING'),
          action(2, 'FAILED'),
          { actionId: `cancel-${jobId}-1`, actionType: 'cancelOrder', actionStatus: 'FINISHED' },
        ],
      }),
    );
    expect(progress?.rooms.map((room) => room.state)).toEqual(['done', 'aborted', 'not_reached']);
    expect(progress).toMatchObject({ ended: true, completionStatus: 'aborted', changed: [1, 2] });
  });

  it('aborts a room the robot reports UV-C for even when no state showed it running (a network gap)', () => {
    const dose = (orderNo: number, value: number) => ({
      infoType: 'uvd_dose_delivered',
      infoLevel: 'INFO' as const,
      infoReferences: [
        { referenceKey: 'action_id', referenceValue: disinfectActionId(jobId, orderNo) },
        { referenceKey: 'dose', referenceValue: String(value) },
        { referenceKey: 'started_at', referenceValue: '2026-11-26T10:00:00.000Z' },
        { referenceKey: 'ended_at', referenceValue: '2026-11-26T10:00:20.000Z' },
      ],
    });
    const reported = order({
      actionStates: [action(0, 'FAILED', 'aborted'), action(1, 'FAILED', 'aborted')],
      information: [dose(0, 7.5), dose(1, 0)],
    });
    expect(reported.doses.get(0)).toEqual({ dose: 7.5, startedAt: Date.parse('2026-11-26T10:00:00.000Z'), endedAt: Date.parse('2026-11-26T10:00:20.000Z') });
    const progress = reduceProgress(snapshot('pending', 'pending'), reported);
    expect(progress?.rooms.map((room) => room.state)).toEqual(['aborted', 'not_reached']);
    expect(progress?.completionStatus).toBe('aborted');
  });
});

describe('completionStatus', () => {
  it('is completed with rooms done or skipped as not ready', () => {
    expect(completionStatus([{ state: 'done' }, { state: 'not_ready' }])).toBe('completed');
    expect(completionStatus([{ state: 'done' }, { state: 'not_reached' }])).toBe('failed');
    expect(completionStatus([{ state: 'aborted' }, { state: 'not_reached' }])).toBe('aborted');
    // An operator's stop before any room began: aborted, not failed.
    expect(completionStatus([{ state: 'not_reached' }], true)).toBe('aborted');
  });
});

describe('promptsOf', () => {
  it('reads operator prompts from information entries and skips malformed ones', () => {
    const prompts = promptsOf(
      state({
        information: [
          {
            infoType: 'uvd_operator_prompt',
            infoLevel: 'INFO',
            infoDescription: 'wait_to_enter',
            infoReferences: [
              { referenceKey: 'prompt_id', referenceValue: 'p-1' },
              { referenceKey: 'button', referenceValue: 'wait_to_enter' },
              { referenceKey: 'room_id', referenceValue: roomIds[0] ?? '' },
            ],
          },
          { infoType: 'uvd_operator_prompt', infoLevel: 'INFO', infoDescription: 'not_a_button', infoReferences: [{ referenceKey: 'prompt_id', referenceValue: 'p-2' }] },
          { infoType: 'uvd_operator_prompt', infoLevel: 'INFO', infoDescription: 'skip' },
          { infoType: 'other', infoLevel: 'DEBUG' },
        ],
      }),
    );
    expect(prompts).toEqual([{ promptId: 'p-1', button: 'wait_to_enter', roomId: roomIds[0] }]);
  });
});

describe('reading a state (events.ts)', () => {
  const robot = { robotId: roomIds[0] ?? '', orgId: 'org', manufacturer: 'uvd', serialNumber: 'SN-1' };

  it("reads only the reported job's rooms, by order_no", () => {
    const other = '00000000-0000-4000-8000-000000000002';
    const report = order({
      actionStates: [action(0, 'RUNNING'), { actionId: disinfectActionId(other, 1), actionStatus: 'FINISHED' }, { actionId: 'disinfect-x', actionStatus: 'FINISHED' }],
    });
    expect([...report.rooms]).toEqual([[0, 'active']]);
    expect(order({ orderId: 'not-ours', actionStates: [action(0, 'RUNNING')] })).toMatchObject({ jobId: undefined, rooms: new Map() });
  });

  it('is disinfecting while one of our disinfect actions runs, also without its actionType', () => {
    expect(statusOf(state({ driving: true, actionStates: [{ actionId: disinfectActionId(jobId, 2), actionStatus: 'RUNNING' }] }))).toBe('disinfecting');
    expect(statusOf(state({ driving: true, actionStates: [{ actionId: 'disinfecting-robot-arm', actionStatus: 'RUNNING' }] }))).toBe('driving');
  });

  it('is waiting while the robot asks an operator, on_order while its order goes on standing still, idle only without one', () => {
    const prompt = {
      infoType: 'uvd_operator_prompt',
      infoLevel: 'INFO' as const,
      infoDescription: 'wait_to_enter',
      infoReferences: [
        { referenceKey: 'prompt_id', referenceValue: 'p-1' },
        { referenceKey: 'button', referenceValue: 'wait_to_enter' },
        { referenceKey: 'room_id', referenceValue: roomIds[1] ?? '' },
      ],
    };
    const ahead = { nodeStates: [{ nodeId: 'room-1', sequenceId: 2, released: true }], actionStates: [action(1, 'WAITING')] };
    expect(statusOf(state({ ...ahead, information: [prompt] }))).toBe('waiting');
    expect(statusOf(state(ahead))).toBe('on_order');
    expect(statusOf(state({ ...ahead, driving: true }))).toBe('driving');
    expect(statusOf(state({ ...ahead, paused: true, information: [prompt] }))).toBe('paused');
    expect(statusOf(state({ actionStates: [action(2, 'FINISHED')] }))).toBe('idle');
  });

  it('lets a later state stand for a waiting one only when no room result, pause, cancel, prompt or low battery changed', () => {
    const at = (x: number, overrides: Partial<StateMessage> = {}) =>
      readState(robot, state({ agvPosition: { x, y: 0, theta: 0, mapId: floorId, positionInitialized: true }, ...overrides }));
    const running = { actionStates: [action(0, 'RUNNING')] };
    expect(supersedes(at(2, running), at(1, running), 20)).toBe(true);
    expect(supersedes(at(2, { actionStates: [action(0, 'FINISHED')] }), at(1, running), 20)).toBe(false);
    expect(supersedes(at(2, { ...running, paused: true }), at(1, running), 20)).toBe(false);
    expect(supersedes(at(2, { ...running, batteryState: { batteryCharge: 19, charging: false } }), at(1, running), 20)).toBe(false);
    const prompt = { infoType: 'uvd_operator_prompt', infoLevel: 'INFO' as const, infoDescription: 'wait', infoReferences: [{ referenceKey: 'prompt_id', referenceValue: 'p-1' }] };
    expect(supersedes(at(2, { ...running, information: [prompt] }), at(1, running), 20)).toBe(false);
  });
});

describe('worthRecording', () => {
  it('keeps a point after 0.3 m or a floor change', () => {
    const last = { x: 0, y: 0, floorId };
    expect(worthRecording(undefined, last)).toBe(true);
    expect(worthRecording(last, { x: 0.2, y: 0.2, floorId })).toBe(false);
    expect(worthRecording(last, { x: 0.3, y: 0, floorId })).toBe(true);
    expect(worthRecording(last, { x: 0, y: 0, floorId: roomIds[0] ?? '' })).toBe(true);
  });
});
