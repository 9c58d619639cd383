/**
 * The escalation ladder's rule (escalation.ts dueRung): which rung is due when, for a wait at the drop-off, a wait
 * at the pickup, a delivery without a recipient user, a missed deliver_by, and a new wait after an earlier one's
 * ladder. The ladder end to end (pushes, custody, two processes) is pushes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryStatus } from '@uvd/contracts';
import { dueRung } from './escalation.ts';
import type { DeliveryRow } from './lifecycle.ts';

const MINUTE = 60_000;
const t0 = new Date('2030-03-01T10:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * MINUTE);

const delivery = (changes: Partial<DeliveryRow>): DeliveryRow => ({
  id: '00000000-0000-4000-8000-000000000001',
  orgId: 'org',
  status: DeliveryStatus.waiting,
  priority: 'routine',
  pickupRoomId: '00000000-0000-4000-8000-000000000002',
  dropoffRoomId: '00000000-0000-4000-8000-000000000003',
  robotId: null,
  requestedById: '00000000-0000-4000-8000-000000000004',
  requestedByName: 'Sender',
  recipientUserId: '00000000-0000-4000-8000-000000000005',
  recipientName: 'Recipient',
  deliverBy: null,
  notes: '',
  pinHash: 'x',
  pinFailures: 0,
  handoffLockedAt: null,
  handoffVerifiedAt: null,
  loadedAt: null,
  deliveredAt: null,
  waitingFor: 'recipient',
  waitingSince: t0,
  reason: null,
  dispatchAttempts: 1,
  dispatchedAt: null,
  troubleSince: null,
  drawer: null,
  lastPlace: null,
  escalationLevel: 0,
  escalatedAt: null,
  orderUpdateId: 0,
  createdAt: t0,
  updatedAt: t0,
  ...changes,
});

describe('dueRung', () => {
  it('waiting for the recipient: nothing before the interval, then the recipient, the sender and the admins an interval apart', () => {
    expect(dueRung(delivery({}), 5 * MINUTE, at(4))).toBeUndefined();
    expect(dueRung(delivery({}), 5 * MINUTE, at(5))).toMatchObject({ level: 1, target: 'recipient', late: false });
    expect(dueRung(delivery({ escalationLevel: 1, escalatedAt: at(5) }), 5 * MINUTE, at(9))).toBeUndefined();
    expect(dueRung(delivery({ escalationLevel: 1, escalatedAt: at(5) }), 5 * MINUTE, at(10))).toMatchObject({ level: 2, target: 'sender' });
    expect(dueRung(delivery({ escalationLevel: 2, escalatedAt: at(10) }), 5 * MINUTE, at(15))).toMatchObject({ level: 3, target: 'admins', stored: 3 });
    expect(dueRung(delivery({ escalationLevel: 3, escalatedAt: at(15) }), 5 * MINUTE, at(60))).toBeUndefined();
  });

  it('waiting for loading, or without a recipient user: the sender, then the admins, and the ladder ends', () => {
    for (const changes of [{ waitingFor: 'loading' as const }, { recipientUserId: null }]) {
      expect(dueRung(delivery(changes), 5 * MINUTE, at(5))).toMatchObject({ level: 1, target: 'sender', stored: 1 });
      expect(dueRung(delivery({ ...changes, escalationLevel: 1, escalatedAt: at(5) }), 5 * MINUTE, at(10))).toMatchObject({ level: 2, target: 'admins', stored: 3 });
    }
  });

  it('past deliver_by in any open status: escalates as late from deliver_by', () => {
    const queued = delivery({ status: DeliveryStatus.queued, waitingFor: null, waitingSince: null, deliverBy: at(30) });
    expect(dueRung(queued, 5 * MINUTE, at(29))).toBeUndefined();
    expect(dueRung(queued, 5 * MINUTE, at(30))).toMatchObject({ level: 1, target: 'recipient', late: true });
  });

  it('a new wait starts its ladder afresh', () => {
    // The pickup's wait climbed to the end of its ladder; the robot now waits at the drop-off since minute 40.
    const dropoff = delivery({ escalationLevel: 3, escalatedAt: at(20), waitingSince: at(40) });
    expect(dueRung(dropoff, 5 * MINUTE, at(44))).toBeUndefined();
    expect(dueRung(dropoff, 5 * MINUTE, at(45))).toMatchObject({ level: 1, target: 'recipient' });
  });
});
