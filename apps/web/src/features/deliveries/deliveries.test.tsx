import {
  cancelDelivery,
  commandDelivery,
  confirmLoading,
  getDelivery,
  getFloorMap,
  getFloorMapMetadata,
  getFloors,
  getRobots,
  handoffDelivery,
  listDeliveries,
} from '@uvd/contracts';
import type { DeliveryDetail, DeliveryList, FloorMapMetadata } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { FakeNetwork, heldReply } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession, testConfig } from '../../testing/fixtures.ts';
import { custodyStep, deliveryFixture, deliveryId, detailFixture, SITE } from '../../testing/delivery-fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { robotFixture } from '../../testing/robot-fixtures.ts';
import { defaultStartDate } from '../../lib/list-filters.ts';
import { applyDeliveryChange, deliveryChangeNeedsRefetch, readDeliveryFilters } from './api/deliveries-query.ts';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300"/></svg>';
const METADATA: FloorMapMetadata = { floor_id: SITE.floor, resolution: 0.05, origin: { x: 0, y: 0 }, width: 400, height: 300, rooms: [] };

let streams: { url: URL; headers: Headers; stream: FakeEventStream }[] = [];

beforeEach(() => {
  streams = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const stream = new FakeEventStream();
    streams.push({ url: new URL(input instanceof Request ? input.url : String(input)), headers: new Headers(init?.headers), stream });
    return Promise.resolve(stream.response);
  });
  vi.stubGlobal(
    'URL',
    Object.assign(class extends URL {}, { createObjectURL: () => 'blob:plan', revokeObjectURL: () => undefined }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const deliveryStream = () => streams.find((entry) => entry.url.pathname === '/api/deliveries/stream');
const listOf = (deliveries: DeliveryList['payload'], count = deliveries.length): DeliveryList => ({ count, payload: deliveries });

const signedIn = () => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(getRobots, {
      status: 200,
      body: {
        count: 2,
        payload: [
          robotFixture({ robot_id: SITE.robot, name: 'Courier-1', kind: 'delivery', floor_id: SITE.floor, building_id: SITE.building, pose: { x: 5, y: 2, theta: 0 } }),
          robotFixture({ robot_id: deliveryId(99), name: 'UVD-1', kind: 'disinfection' }),
        ],
      },
    })
    .on(getFloors, { status: 200, body: { data: [{ floor_id: SITE.floor, floor_name: 'Ground', building_id: SITE.building, level: 0 }] } })
    .on(getFloorMap, { status: 200, body: SVG })
    .on(getFloorMapMetadata, { status: 200, body: METADATA });
};

const config = testConfig({ variant: 'logistics' });

const openList = async (network: FakeNetwork, path = '/deliveries') => {
  const view = await renderApp({ path, network, config });
  expect(await screen.findByRole('heading', { level: 1, name: 'Deliveries' })).toBeInTheDocument();
  return view;
};

const lastQuery = (network: FakeNetwork) => network.callsTo(listDeliveries).at(-1)?.url.searchParams;

describe('deliveries list', () => {
  it('reads the status filter (0–6 only) and the list filters from the address', () => {
    const filters = readDeliveryFilters(new URLSearchParams('status=3,9,x,6&robot=a&offset=10&limit=20'), 'Europe/Helsinki', new Date('2026-11-26T12:00:00Z'));
    expect(filters).toEqual({ startDate: '2026-11-19', endDate: undefined, robots: ['a'], offset: 10, limit: 20, statuses: [3, 6] });
  });

  it('a live change replaces the delivery by id; a page refetches for one it does not hold or a status change', () => {
    const list = listOf([deliveryFixture(1), deliveryFixture(2)], 12);
    const changed = applyDeliveryChange(list, deliveryFixture(2, { status: 3, waiting_for: 'recipient' }));
    expect(changed?.payload.map((delivery) => delivery.status)).toEqual([1, 3]);
    expect(changed?.count).toBe(12);
    expect(applyDeliveryChange(list, deliveryFixture(7))).toBe(list);
    expect(deliveryChangeNeedsRefetch(list, deliveryFixture(7))).toBe(true);
    expect(deliveryChangeNeedsRefetch(list, deliveryFixture(1, { drawer: 'open' }))).toBe(false);
    expect(deliveryChangeNeedsRefetch(list, deliveryFixture(1, { status: 4 }))).toBe(true);
  });

  it('shows what, route, priority, status (waiting for, late, pending, blocked reason), robot and time, and sends the filters', async () => {
    const network = signedIn().on(listDeliveries, {
      status: 200,
      body: listOf(
        [
          deliveryFixture(1, { status: 3, waiting_for: 'recipient', late: true, deliver_by: '2026-11-26T08:30:00Z', priority: 'stat' }),
          deliveryFixture(2, {
            items: [
              { description: 'Blood sample', category: 'blood', quantity: 3 },
              { description: 'Forms', category: 'document', quantity: 1 },
            ],
            pending_command: 'pause',
          }),
          deliveryFixture(3, { status: 6, reason: 'path_blocked', robot_id: null, robot_name: null }),
        ],
        25,
      ),
    });
    await openList(network, '/deliveries?status=3,6&endDate=2026-11-30&offset=10');
    const rows = await screen.findAllByTestId('delivery-row');
    expect(rows).toHaveLength(3);
    const [first, second, third] = rows;
    if (!first || !second || !third) throw new Error('three rows');
    expect(within(first).getByRole('link', { name: 'Pharmacy → Ward 3A' })).toHaveAttribute('href', `/deliveries/${deliveryId(1)}`);
    expect(within(first).getByText('2 × Insulin')).toBeInTheDocument();
    expect(within(first).getByText('STAT (immediately)')).toBeInTheDocument();
    expect(within(first).getByTestId('delivery-status')).toHaveTextContent('Waiting for the recipient');
    expect(within(first).getByTestId('delivery-late')).toHaveTextContent('Late');
    expect(within(first).getByText('Courier-1')).toBeInTheDocument();
    // 08:00 UTC is 10:00 in the user's Helsinki.
    expect(within(first).getByText('26.11.2026 10:00 AM')).toBeInTheDocument();
    expect(within(second).getByText('3 × Blood sample +1 more')).toBeInTheDocument();
    expect(within(second).getByTestId('delivery-pending')).toHaveTextContent('Pause sent — waiting for the robot');
    expect(within(third).getByTestId('delivery-status')).toHaveTextContent('Blocked');
    expect(within(third).getByTestId('delivery-blocked-reason')).toHaveTextContent('Blocked: the way is blocked');
    expect(within(third).getByText('No robot yet')).toBeInTheDocument();

    const query = lastQuery(network);
    expect(query?.getAll('status')).toEqual(['3', '6']);
    expect(query?.get('from_date')).toBe(defaultStartDate(new Date(), 'Europe/Helsinki'));
    expect(query?.get('to_date')).toBe('2026-11-30');
    expect(query?.get('offset')).toBe('10');
    expect(screen.getByText('Page 2 of 3')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New delivery' })).toHaveAttribute('href', '/deliveries/create');
  });

  it('filters by status and delivery robot in the dialog, keeping the address in sync and dropping the offset', async () => {
    const network = signedIn().on(listDeliveries, { status: 200, body: listOf([deliveryFixture(1)], 30) });
    const { router } = await openList(network, '/deliveries?offset=20');
    await userEvent.click(await screen.findByRole('button', { name: 'Filter' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(within(dialog).getByRole('group', { name: 'Status' })).getByRole('checkbox', { name: 'Waiting' }));
    const robots = within(dialog).getByRole('group', { name: 'Robots' });
    await userEvent.click(await within(robots).findByRole('checkbox', { name: 'Courier-1' }));
    // Only delivery robots carry deliveries.
    expect(within(robots).queryByRole('checkbox', { name: 'UVD-1' })).not.toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('status')).toBe('3');
    });
    const search = new URLSearchParams(router.location().search);
    expect(search.get('robot')).toBe(SITE.robot);
    expect(search.has('offset')).toBe(false);
    await waitFor(() => {
      expect(lastQuery(network)?.getAll('status')).toEqual(['3']);
    });
    expect(lastQuery(network)?.getAll('robot_id')).toEqual([SITE.robot]);
    expect(lastQuery(network)?.get('offset')).toBe('0');
  });

  it('shows placeholder rows while loading', async () => {
    await openList(signedIn().on(listDeliveries, { hang: true }));
    expect(await screen.findAllByTestId('skeleton-row')).toHaveLength(10);
  });

  it('shows the empty state', async () => {
    await openList(signedIn().on(listDeliveries, { status: 200, body: listOf([]) }));
    expect(await screen.findByText('No deliveries.')).toBeInTheDocument();
  });

  it('shows the error', async () => {
    await openList(signedIn().on(listDeliveries, { status: 500, body: { error: 'internal', message: 'boom' } }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load deliveries.');
  });

  it('follows GET /deliveries/stream: delivery_change replaces the row, a new delivery is fetched, a reconnect refetches', async () => {
    let list = listOf([deliveryFixture(1), deliveryFixture(2)]);
    const network = signedIn().on(listDeliveries, () => ({ status: 200, body: list }));
    await openList(network);
    await screen.findAllByTestId('delivery-row');
    await waitFor(() => {
      expect(deliveryStream()).toBeDefined();
    });
    const live = deliveryStream();
    expect(live?.url.searchParams.get('delivery_list') ?? '').toBe('');
    expect(live?.headers.get('Authorization')).toMatch(/^Bearer /);

    live?.stream.event('delivery_change', deliveryFixture(1, { drawer: 'open', pending_command: 'resume' }));
    expect(await screen.findByText('Resume sent — waiting for the robot')).toBeInTheDocument();

    const before = network.callsTo(listDeliveries).length;
    list = listOf([deliveryFixture(3, { pickup: { room_id: SITE.lab, name: 'Laboratory', floor_id: SITE.floor, building_id: SITE.building } }), ...list.payload]);
    live?.stream.event('delivery_change', list.payload[0]);
    expect(await screen.findByRole('link', { name: 'Laboratory → Ward 3A' })).toBeInTheDocument();
    expect(network.callsTo(listDeliveries).length).toBeGreaterThan(before);

    // While the stream is down delivery 2 was delivered (beyond the server's replay): the page heals on reconnect.
    list = listOf(list.payload.map((delivery) => (delivery.delivery_id === deliveryId(2) ? { ...delivery, status: 4 as const } : delivery)));
    live?.stream.end();
    await waitFor(
      () => {
        expect(screen.getAllByTestId('delivery-status').map((cell) => cell.textContent)).toContain('Delivered');
      },
      { timeout: 10_000 },
    );
  });

  it('on a phone a row shows the route, status, robot and time, and leaves out the other columns', async () => {
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query.includes('max-width'), media: query, addEventListener: vi.fn(), removeEventListener: vi.fn() }));
    const long = 'Central sterile services department, basement level two';
    const network = signedIn().on(listDeliveries, {
      status: 200,
      body: listOf([deliveryFixture(1, { pickup: { room_id: SITE.lab, name: long, floor_id: SITE.floor, building_id: SITE.building } })]),
    });
    await openList(network);
    const [row] = await screen.findAllByTestId('delivery-row');
    if (!row) throw new Error('a row');
    expect(within(row).getAllByRole('cell')).toHaveLength(2);
    expect(within(row).getByRole('link', { name: `${long} → Ward 3A` })).toHaveClass('text-break');
    const second = within(row).getByTestId('delivery-row-second-line');
    expect(second).toHaveTextContent('Courier-1 · 26.11.2026 10:00 AM');
    expect(within(row).getByTestId('delivery-status')).toHaveTextContent('In transit');
    expect(screen.queryByRole('columnheader', { name: 'What' })).not.toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: 'Priority' })).not.toBeInTheDocument();
  });
});

const detailNetwork = (detail: DeliveryDetail | (() => DeliveryDetail)) =>
  signedIn().on(getDelivery, () => ({ status: 200, body: typeof detail === 'function' ? detail() : detail }));

const openDetail = async (network: FakeNetwork, n = 1) => {
  const view = await renderApp({ path: `/deliveries/${deliveryId(n)}`, network, config });
  expect(await screen.findByRole('heading', { level: 1, name: 'Delivery Pharmacy → Ward 3A' })).toBeInTheDocument();
  return view;
};

describe('delivery detail', () => {
  it('shows status, items, people, deliver-by with the late warning, the route with the robot, and the custody timeline', async () => {
    const network = detailNetwork(
      detailFixture(1, {
        status: 3,
        waiting_for: 'loading',
        waiting_since: '2026-11-26T08:10:00Z',
        late: true,
        deliver_by: '2026-11-26T08:30:00Z',
        notes: 'Keep cold',
        custody: [
          custodyStep('requested', '2026-11-26T08:00:00Z', { user_name: 'Sam Sender', detail: 'console' }),
          custodyStep('arrived', '2026-11-26T08:10:00Z', { robot_name: 'Courier-1', place: { floor_id: SITE.floor, x: 2, y: 1, room_id: SITE.pharmacy }, detail: 'pickup' }),
          custodyStep('escalated', '2026-11-26T08:31:00Z', { detail: 'sender (late)' }),
        ],
      }),
    );
    await openDetail(network);
    expect(screen.getAllByTestId('delivery-status')[0]).toHaveTextContent('Waiting for loading');
    expect(screen.getByTestId('delivery-status-announcement')).toHaveTextContent('Delivery status: Waiting for loading');
    expect(screen.getByTestId('delivery-waiting-since')).toHaveTextContent('Waiting since 10:10 AM');
    expect(screen.getByTestId('delivery-late-warning')).toHaveTextContent('Late: it should have been delivered by 26.11.2026 10:30 AM.');
    expect(screen.getByText('Sam Sender', { selector: 'dd' })).toBeInTheDocument();
    expect(screen.getByText('Nina Nurse')).toBeInTheDocument();
    expect(screen.getByTestId('delivery-item')).toHaveTextContent('2 × InsulinMedication');
    expect(screen.getByText('Keep cold')).toBeInTheDocument();

    const steps = screen.getAllByTestId('custody-step');
    expect(steps.map((step) => step.textContent)).toEqual([
      'Requested26.11.2026 10:00 AM · by Sam Senderfrom the console',
      'Arrived26.11.2026 10:10 AM · by Courier-1 · Pharmacyat the pickup',
      'Escalated26.11.2026 10:31 AM' + 'to the sender, late',
    ]);

    const map = await screen.findByTestId('delivery-route-map');
    // 2 m, 1 m on a 5 cm plan 300 px high: (40, 280); the drop-off at (160, 220); the robot at (100, 260).
    expect(within(map).getByTestId('route-pickup')).toHaveAttribute('data-x', '40');
    expect(within(map).getByTestId('route-pickup')).toHaveAttribute('data-y', '280');
    expect(within(map).getByTestId('route-dropoff')).toHaveAttribute('data-x', '160');
    expect(within(map).getByTestId('robot-marker')).toHaveAttribute('data-x', '100');
    expect(screen.getByText('Courier-1 is shown where it is now.')).toBeInTheDocument();
  });

  it('confirms loading while the robot waits at the pickup', async () => {
    const network = detailNetwork(detailFixture(1, { status: 3, waiting_for: 'loading' })).on(confirmLoading, {
      status: 200,
      body: detailFixture(1, { status: 1 }),
    });
    await openDetail(network);
    await userEvent.click(screen.getByRole('button', { name: 'Confirm loading' }));
    await waitFor(() => {
      expect(screen.getAllByTestId('delivery-status')[0]).toHaveTextContent('In transit');
    });
    expect(network.callsTo(confirmLoading)).toHaveLength(1);
    expect(network.callsTo(confirmLoading)[0]?.headers.get('Idempotency-Key')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Confirm loading' })).not.toBeInTheDocument();
  });

  it('pauses: the command shows as sent and waiting for the robot until the robot reports it', async () => {
    const network = detailNetwork(detailFixture(1)).on(commandDelivery, { status: 200, body: detailFixture(1, { pending_command: 'pause' }) });
    await openDetail(network);
    expect(screen.queryByRole('button', { name: 'Resume' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByTestId('delivery-pending')).toHaveTextContent('Pause sent — waiting for the robot');
    expect(network.callsTo(commandDelivery)[0]?.url.searchParams.get('command')).toBe('pause');
    expect(screen.queryByRole('button', { name: 'Pause' })).not.toBeInTheDocument();
  });

  it('resumes a paused delivery', async () => {
    const network = detailNetwork(detailFixture(1, { status: 2 })).on(commandDelivery, { status: 200, body: detailFixture(1, { status: 2, pending_command: 'resume' }) });
    await openDetail(network);
    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));
    expect(await screen.findByTestId('delivery-pending')).toHaveTextContent('Resume sent — waiting for the robot');
    expect(network.callsTo(commandDelivery)[0]?.url.searchParams.get('command')).toBe('resume');
  });

  it('cancels after the confirm dialog, and a cancelled delivery offers nothing', async () => {
    const network = detailNetwork(detailFixture(1)).on(cancelDelivery, { status: 200, body: detailFixture(1, { status: 5, robot_id: null, robot_name: null }) });
    await openDetail(network);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel delivery' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel this delivery?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    // The dialog fades out before it goes, its own "Cancel delivery" with it.
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(network.callsTo(cancelDelivery)).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel delivery' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel delivery' }));
    await waitFor(() => {
      expect(screen.getAllByTestId('delivery-status')[0]).toHaveTextContent('Cancelled');
    });
    expect(network.callsTo(cancelDelivery)).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Cancel delivery' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Pause' })).not.toBeInTheDocument();
  });

  it.each([
    ['delivery_state', "The delivery's status does not allow this now. The screen shows it as it is now."],
    ['delivery_finished', 'The delivery is finished (delivered or cancelled) and can no longer be changed.'],
    ['handoff_not_waiting', 'The robot is not waiting for this now. Wait until it shows Waiting, then try again.'],
    ['robot_offline', 'The robot is offline: nothing was sent. Check its network, then try again.'],
    ['handoff_locked', 'The hand-off is locked after three wrong PINs. The sender and the administrators have been told: ask them to help.'],
    ['internal', 'The pause could not be sent.'],
  ])('tells the refusal %s in the user\'s language with what to do next', async (code, text) => {
    const network = detailNetwork(detailFixture(1)).on(commandDelivery, { status: code === 'internal' ? 500 : 409, body: { error: code, message: 'refused' } });
    await openDetail(network);
    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByTestId('delivery-refusal')).toHaveTextContent(text);
  });

  it('tells the refusals in Finnish too', async () => {
    const network = detailNetwork(detailFixture(1)).on(commandDelivery, { status: 409, body: { error: 'robot_offline', message: 'refused' } });
    await renderApp({ path: `/deliveries/${deliveryId(1)}`, network, config, language: 'fi' });
    await userEvent.click(await screen.findByRole('button', { name: 'Keskeytä' }));
    expect(await screen.findByTestId('delivery-refusal')).toHaveTextContent('Robotti ei ole yhteydessä: mitään ei lähetetty.');
  });

  it('takes the PIN while the robot waits for the recipient: attempts left after a wrong one, locked after the third', async () => {
    let locked = false;
    const replies = [
      { status: 409, body: { error: 'handoff_wrong_pin', message: 'wrong', details: { attempts_left: 2 } } },
      { status: 409, body: { error: 'handoff_wrong_pin', message: 'wrong', details: { attempts_left: 1 } } },
      { status: 409, body: { error: 'handoff_locked', message: 'locked' } },
    ];
    const network = detailNetwork(() =>
      detailFixture(1, { status: 3, waiting_for: 'recipient', handoff_locked: locked, handoff_attempts_left: locked ? 0 : 3 }),
    ).on(handoffDelivery, (request: RecordedRequest) => {
      const reply = replies.shift();
      if (!reply) throw new Error(`no more replies for ${request.body}`);
      if (replies.length === 0) locked = true;
      return reply;
    });
    await openDetail(network);
    const pin = screen.getByLabelText('PIN');
    // Confirm loading is the sender's; the recipient's step is the PIN.
    expect(screen.queryByRole('button', { name: 'Confirm loading' })).not.toBeInTheDocument();

    await userEvent.type(pin, '12a');
    await userEvent.click(screen.getByRole('button', { name: 'Open the drawer' }));
    expect(screen.getByTestId('delivery-pin-error')).toHaveTextContent('Enter the PIN as digits (4 digits).');
    expect(network.callsTo(handoffDelivery)).toHaveLength(0);

    await userEvent.clear(pin);
    await userEvent.type(pin, '1111');
    await userEvent.click(screen.getByRole('button', { name: 'Open the drawer' }));
    expect(await screen.findByText('Wrong PIN. Attempts left: 2. Check the PIN with the sender.')).toBeInTheDocument();
    expect(JSON.parse(network.callsTo(handoffDelivery)[0]?.body ?? '{}')).toEqual({ pin: '1111' });
    expect(screen.getByLabelText('PIN')).toHaveAttribute('aria-invalid', 'true');

    await userEvent.type(screen.getByLabelText('PIN'), '2222');
    await userEvent.click(screen.getByRole('button', { name: 'Open the drawer' }));
    expect(await screen.findByText('Wrong PIN. Attempts left: 1. Check the PIN with the sender.')).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('PIN'), '3333');
    await userEvent.click(screen.getByRole('button', { name: 'Open the drawer' }));
    // The delivery is read again: locked, the PIN is no longer asked for.
    expect(await screen.findByTestId('delivery-handoff-locked')).toHaveTextContent('The hand-off is locked after three wrong PINs.');
    await waitFor(() => {
      expect(screen.queryByLabelText('PIN')).not.toBeInTheDocument();
    });
  });

  it('a right PIN hands it over: the reply and the live change show Delivered with the custody record', async () => {
    const delivered = detailFixture(1, {
      status: 4,
      delivered_at: '2026-11-26T08:20:00Z',
      custody: [
        ...detailFixture(1).custody,
        custodyStep('received', '2026-11-26T08:19:00Z', { user_name: 'Nina Nurse', detail: 'console', place: { floor_id: SITE.floor, x: 8, y: 4, room_id: SITE.ward } }),
        custodyStep('delivered', '2026-11-26T08:20:00Z', { robot_name: 'Courier-1' }),
      ],
    });
    let current = detailFixture(1, { status: 3, waiting_for: 'recipient' });
    const network = detailNetwork(() => current).on(handoffDelivery, { status: 200, body: detailFixture(1, { status: 3, waiting_for: 'recipient', drawer: 'open' }) });
    await openDetail(network);
    await userEvent.type(screen.getByLabelText('PIN'), '4821');
    await userEvent.click(screen.getByRole('button', { name: 'Open the drawer' }));
    expect(await screen.findByText('Open', { selector: 'dd' })).toBeInTheDocument();
    expect(screen.queryByTestId('delivery-pin-error')).not.toBeInTheDocument();

    await waitFor(() => {
      expect(deliveryStream()).toBeDefined();
    });
    current = delivered;
    const { custody: _custody, route: _route, ...change } = delivered;
    deliveryStream()?.stream.event('delivery_change', change);
    await waitFor(() => {
      expect(screen.getByTestId('delivery-status-announcement')).toHaveTextContent('Delivery status: Delivered');
    });
    expect(await screen.findByText('Received (PIN verified)')).toBeInTheDocument();
    expect(screen.getAllByTestId('custody-step').at(-1)).toHaveTextContent('Delivered26.11.2026 10:20 AM · by Courier-1');
    expect(screen.queryByLabelText('PIN')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel delivery' })).not.toBeInTheDocument();
  });

  it('reads the custody record again after the last of two quick changes, even while the read for the first is under way', async () => {
    const waiting = detailFixture(1, { status: 3, waiting_for: 'recipient' });
    const delivered = detailFixture(1, {
      status: 4,
      delivered_at: '2026-11-26T08:20:00Z',
      custody: [...waiting.custody, custodyStep('delivered', '2026-11-26T08:20:00Z', { robot_name: 'Courier-1' })],
    });
    let current = waiting;
    let holdNext = false;
    let release: (() => void) | undefined;
    const network = signedIn().on(getDelivery, async () => {
      const snapshot = current;
      if (holdNext) {
        holdNext = false;
        // A slow network: this read answers with the record as it was when it was asked for, after the next change.
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      return { status: 200, body: snapshot };
    });
    await openDetail(network);
    await waitFor(() => {
      expect(deliveryStream()).toBeDefined();
    });
    holdNext = true;
    const { custody: _first, route: _firstRoute, ...drawerOpen } = detailFixture(1, { status: 3, waiting_for: 'recipient', drawer: 'open' });
    deliveryStream()?.stream.event('delivery_change', drawerOpen);
    await waitFor(() => {
      expect(release).toBeDefined();
    });
    current = delivered;
    const { custody: _second, route: _secondRoute, ...change } = delivered;
    deliveryStream()?.stream.event('delivery_change', change);
    release?.();
    await waitFor(() => {
      expect(screen.getAllByTestId('custody-step').at(-1)).toHaveTextContent('Delivered26.11.2026 10:20 AM · by Courier-1');
    });
  });

  it('shows a change committed after its first read and before its stream opened: it reads the delivery again once the stream is open', async () => {
    let current = detailFixture(1, { status: 1 });
    const network = signedIn().on(getDelivery, () => {
      const snapshot = current;
      // The robot reaches the pickup just after this read, before the server has the stream: no event tells of it.
      current = detailFixture(1, { status: 3, waiting_for: 'loading' });
      return { status: 200, body: snapshot };
    });
    // The stream answers only after the first read: the server subscribed it after the change.
    let open: (() => void) | undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const stream = new FakeEventStream();
      streams.push({ url: new URL(input instanceof Request ? input.url : String(input)), headers: new Headers(init?.headers), stream });
      await opened;
      return stream.response;
    });
    await openDetail(network);
    expect(screen.getAllByTestId('delivery-status')[0]).toHaveTextContent('In transit');
    await waitFor(() => {
      expect(deliveryStream()).toBeDefined();
    });
    open?.();
    await waitFor(() => {
      expect(screen.getAllByTestId('delivery-status')[0]).toHaveTextContent('Waiting for loading');
    });
    expect(network.callsTo(getDelivery)).toHaveLength(2);
  });

  it('shows a change that arrives while its first read is under way, though that read answers with the delivery as it was', async () => {
    // A slow first read: the server read the delivery In transit, and answers after the robot reached the pickup.
    const firstRead = heldReply(() => ({ status: 200, body: detailFixture(1, { status: 1 }) }));
    const network = signedIn().on(getDelivery, firstRead.handler);
    await renderApp({ path: `/deliveries/${deliveryId(1)}`, network, config });
    await waitFor(() => {
      expect(deliveryStream()).toBeDefined();
      expect(firstRead.asked()).toBe(true);
    });
    const { custody: _custody, route: _route, ...arrived } = detailFixture(1, { status: 3, waiting_for: 'loading' });
    deliveryStream()?.stream.event('delivery_change', arrived);
    network.on(getDelivery, { status: 200, body: detailFixture(1, { status: 3, waiting_for: 'loading' }) });
    firstRead.release();
    await waitFor(() => {
      expect(screen.getAllByTestId('delivery-status')[0]).toHaveTextContent('Waiting for loading');
    });
  });

  it('says so when the delivery is not found', async () => {
    await renderApp({ path: `/deliveries/${deliveryId(1)}`, network: signedIn().on(getDelivery, { status: 404, body: { error: 'not_found', message: 'no' } }), config });
    expect(await screen.findByRole('alert')).toHaveTextContent('This delivery does not exist, or you may not see it.');
  });
});
