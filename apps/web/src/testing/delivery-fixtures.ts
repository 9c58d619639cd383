import { Delivery, DeliveryDetail } from '@uvd/contracts';
import type { CustodyStep } from '@uvd/contracts';
import { fixtureId } from './robot-fixtures.ts';

/** Ids of the deliveries tests' site: one building, one floor, the pharmacy and a ward, one delivery robot. */
export const SITE = {
  building: fixtureId(101),
  floor: fixtureId(201),
  pharmacy: fixtureId(301),
  ward: fixtureId(302),
  lab: fixtureId(303),
  robot: fixtureId(401),
  sender: fixtureId(601),
} as const;

export const deliveryId = (n: number) => fixtureId(500 + n);

/** A delivery as the list sends it: Pharmacy → Ward 3A, In transit on Courier-1, requested 10:00 in Helsinki. */
export const deliveryFixture = (n: number, overrides: Partial<Delivery> = {}): Delivery =>
  Delivery.parse({
    delivery_id: deliveryId(n),
    status: 1,
    priority: 'routine',
    pickup: { room_id: SITE.pharmacy, name: 'Pharmacy', floor_id: SITE.floor, building_id: SITE.building },
    dropoff: { room_id: SITE.ward, name: 'Ward 3A', floor_id: SITE.floor, building_id: SITE.building },
    items: [{ description: 'Insulin', category: 'medication', quantity: 2 }],
    robot_id: SITE.robot,
    robot_name: 'Courier-1',
    requested_by: { user_id: SITE.sender, name: 'Sam Sender' },
    recipient_user_id: null,
    recipient_name: 'Nina Nurse',
    deliver_by: null,
    notes: '',
    created_at: '2026-11-26T08:00:00Z',
    updated_at: '2026-11-26T08:05:00Z',
    waiting_for: null,
    waiting_since: null,
    reason: null,
    dispatch_attempts: 1,
    handoff_attempts_left: 3,
    handoff_locked: false,
    drawer: null,
    pending_command: null,
    delivered_at: null,
    late: false,
    ...overrides,
  });

export const custodyStep = (step: CustodyStep['step'], at: string, overrides: Partial<CustodyStep> = {}): CustodyStep => ({
  step,
  at,
  recorded_at: at,
  user_id: null,
  user_name: null,
  robot_id: null,
  robot_name: null,
  place: null,
  detail: null,
  ...overrides,
});

/** The same delivery with its custody so far and its route (pickup at 2,1 m, drop-off at 8,4 m). */
export const detailFixture = (n: number, overrides: Partial<DeliveryDetail> = {}): DeliveryDetail =>
  DeliveryDetail.parse({
    ...deliveryFixture(n),
    custody: [
      custodyStep('requested', '2026-11-26T08:00:00Z', { user_id: SITE.sender, user_name: 'Sam Sender', detail: 'console' }),
      custodyStep('dispatched', '2026-11-26T08:01:00Z', { robot_id: SITE.robot, robot_name: 'Courier-1' }),
    ],
    route: [
      { floor_id: SITE.floor, x: 2, y: 1, room_id: SITE.pharmacy },
      { floor_id: SITE.floor, x: 8, y: 4, room_id: SITE.ward },
    ],
    ...overrides,
  });
