import { describe, expect, it } from 'vitest';
import { DeliveryStatus } from '@uvd/contracts';
import type { DeliveryRow } from '../../deliveries/lifecycle.ts';
import type { DeliveryReport } from '../events.ts';
import { reduceDelivery } from './progress.ts';

const at = new Date('2026-11-26T10:00:00Z');
const row = (changes: Partial<DeliveryRow> = {}): DeliveryRow => ({
  id: 'd',
  orgId: 'o',
  status: DeliveryStatus.inTransit,
  priority: 'routine',
  pickupRoomId: 'p',
  dropoffRoomId: 'q',
  robotId: 'r',
  requestedById: null,
  requestedByName: 'n',
  recipientUserId: null,
  recipientName: null,
  deliverBy: null,
  notes: '',
  pinHash: 'h',
  pinFailures: 0,
  handoffLockedAt: null,
  handoffVerifiedAt: null,
  loadedAt: null,
  deliveredAt: null,
  waitingFor: null,
  waitingSince: null,
  reason: null,
  dispatchAttempts: 1,
  dispatchedAt: at,
  troubleSince: null,
  drawer: null,
  lastPlace: null,
  escalationLevel: 0,
  escalatedAt: null,
  orderUpdateId: 0,
  createdAt: at,
  updatedAt: at,
  ...changes,
});
const report = (changes: Partial<DeliveryReport> = {}): DeliveryReport => ({
  deliveryId: 'd',
  pick: undefined,
  drop: undefined,
  drawer: 'closed',
  pathBlocked: false,
  fatal: undefined,
  pins: [],
  lastNodeId: '',
  ...changes,
});
const action = (status: 'WAITING' | 'RUNNING' | 'PAUSED' | 'FINISHED' | 'FAILED', attempt = 1, resultDescription?: string) => ({ attempt, status, resultDescription });
const stepsOf = (change: ReturnType<typeof reduceDelivery>) => change.steps.map((step) => [step.step, step.detail]);

describe('reduceDelivery', () => {
  it('tells a drawer opened after the arrival that opened it, and a drawer closed before the departure it allows, each at its stop', () => {
    const arrival = reduceDelivery(row({ drawer: 'closed' }), report({ pick: action('RUNNING'), drawer: 'open' }), false, at);
    expect(arrival.steps.map((step) => [step.step, step.room])).toEqual([
      ['arrived', 'pickup'],
      ['drawer_opened', 'pickup'],
    ]);
    const departure = reduceDelivery(row({ drawer: 'open', waitingFor: 'loading', waitingSince: at, loadedAt: at }), report({ pick: action('FINISHED') }), false, at);
    expect(departure.steps.map((step) => [step.step, step.room])).toEqual([
      ['drawer_closed', 'pickup'],
      ['departed', 'pickup'],
    ]);
    const handOver = reduceDelivery(
      row({ status: DeliveryStatus.waiting, drawer: 'open', waitingFor: 'recipient', waitingSince: at, loadedAt: at, handoffVerifiedAt: at }),
      report({ pick: action('FINISHED'), drop: action('FINISHED') }),
      false,
      at,
    );
    expect(handOver.steps.map((step) => [step.step, step.room])).toEqual([
      ['drawer_closed', 'dropoff'],
      ['delivered', 'dropoff'],
    ]);
  });

  it('enters every phase once, in order, even when the states in between were not seen', () => {
    const change = reduceDelivery(row({ drawer: 'closed' }), report({ pick: action('FINISHED'), drop: action('RUNNING') }), false, at);
    expect(stepsOf(change)).toEqual([
      ['arrived', 'pickup'],
      ['loaded', 'robot'],
      ['departed', undefined],
      ['arrived', 'dropoff'],
    ]);
    expect(change.changes).toMatchObject({ status: DeliveryStatus.waiting, waitingFor: 'recipient', waitingSince: at, loadedAt: at });
  });

  it('leaves a loading confirmed in the console as it was, and records no second loaded step', () => {
    const loaded = new Date('2026-11-26T09:59:00Z');
    const change = reduceDelivery(
      row({ status: DeliveryStatus.waiting, waitingFor: 'loading', waitingSince: loaded, loadedAt: loaded, drawer: 'open' }),
      report({ pick: action('FINISHED'), drop: action('WAITING') }),
      false,
      at,
    );
    expect(stepsOf(change)).toEqual([
      ['drawer_closed', undefined],
      ['departed', undefined],
    ]);
    expect(change.changes).toMatchObject({ status: DeliveryStatus.inTransit, waitingFor: 'recipient', waitingSince: null });
    expect(change.changes.loadedAt).toBeUndefined();
  });

  it('reads only the current dispatch: a pick of an earlier robot changes nothing', () => {
    const change = reduceDelivery(row({ dispatchAttempts: 2, drawer: 'closed' }), report({ pick: action('FAILED', 1, 'aborted') }), false, at);
    expect(change).toEqual({ changes: {}, steps: [] });
  });

  it('is Blocked while the way is blocked, a FATAL error or a failed pick, and Delivered only after the PIN', () => {
    expect(reduceDelivery(row(), report({ pathBlocked: true }), false, at).changes).toMatchObject({ status: DeliveryStatus.blocked, reason: 'path_blocked', troubleSince: at });
    expect(reduceDelivery(row(), report({ fatal: 'motor' }), false, at).changes).toMatchObject({ status: DeliveryStatus.blocked, reason: 'robot_error' });
    expect(reduceDelivery(row(), report({ pick: action('FAILED', 1, 'not_reached') }), false, at).changes).toMatchObject({ reason: 'pick_failed' });
    const waiting = { status: DeliveryStatus.waiting, waitingFor: 'recipient' as const, waitingSince: at, loadedAt: at };
    expect(reduceDelivery(row(waiting), report({ pick: action('FINISHED'), drop: action('FINISHED') }), false, at).changes).toMatchObject({
      status: DeliveryStatus.blocked,
      reason: 'drop_without_handoff',
    });
    const verified = reduceDelivery(row({ ...waiting, handoffVerifiedAt: at }), report({ pick: action('FINISHED'), drop: action('FINISHED') }), false, at);
    expect(verified.changes).toMatchObject({ status: DeliveryStatus.delivered, deliveredAt: at });
    expect(stepsOf(verified).at(-1)).toEqual(['delivered', undefined]);
  });

  it('pauses and resumes, and comes back from Blocked when the robot goes on', () => {
    expect(stepsOf(reduceDelivery(row(), report(), true, at))).toEqual([['paused', undefined]]);
    expect(stepsOf(reduceDelivery(row({ status: DeliveryStatus.paused }), report(), false, at))).toEqual([['resumed', undefined]]);
    const back = reduceDelivery(row({ status: DeliveryStatus.blocked, reason: 'path_blocked', troubleSince: at }), report(), false, at);
    expect(stepsOf(back)).toEqual([['unblocked', 'path_blocked']]);
    expect(back.changes).toMatchObject({ status: DeliveryStatus.inTransit, troubleSince: null });
  });
});
