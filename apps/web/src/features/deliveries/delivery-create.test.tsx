import { Building, CreatedDelivery, DeliveryInput, Floor, Room, createDelivery, getBuildings, getDelivery, getFloors, getMyProfile, getRobots, getRooms, listDeliveryRecipients, listUsers } from '@uvd/contracts';
import type { DeliveryRecipient } from '@uvd/contracts';
import type { Role } from '@uvd/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { FakeNetwork } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { fakeIdentity, sessionUser, storeSession, testConfig } from '../../testing/fixtures.ts';
import { deliveryId, detailFixture, SITE } from '../../testing/delivery-fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { fixtureId } from '../../testing/robot-fixtures.ts';
import { validateDelivery, newDeliveryValues } from './components/delivery-form.ts';

// 09:15 in Helsinki (UTC+2 in November).
const NOW = new Date('2026-11-26T07:15:00Z');
const NURSE = fixtureId(701);
const RECIPIENTS: DeliveryRecipient[] = [
  { user_id: fixtureId(702), name: 'Aino Virtanen', username: 'aino' },
  { user_id: NURSE, name: 'Nina Nurse', username: 'nina' },
];

const room = (room_id: string, room_name: string) =>
  Room.parse({ room_id, room_name, order_no: 0, dose: null, floor_id: SITE.floor, building_id: SITE.building, ready_for_disinfection: true });

const createdFrom = (request: RecordedRequest): CreatedDelivery => {
  const input = DeliveryInput.parse(JSON.parse(request.body));
  return CreatedDelivery.parse({ ...detailFixture(1, { items: input.items, priority: input.priority, status: 0, robot_id: null, robot_name: null }), pin: '4821' });
};

const network = (roles: Role[] = ['done-teleoperator']) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), roles)
    .on(getMyProfile, { status: 200, body: sessionUser(roles) })
    .on(getBuildings, { status: 200, body: { data: [Building.parse({ building_id: SITE.building, building_name: 'North wing' })] } })
    .on(getFloors, { status: 200, body: { data: [Floor.parse({ floor_id: SITE.floor, floor_name: 'Ground floor', building_id: SITE.building, level: 0 })] } })
    .on(getRooms, { status: 200, body: { data: [room(SITE.pharmacy, 'Pharmacy'), room(SITE.ward, 'Ward 3A')] } })
    .on(getRobots, { status: 200, body: { count: 0, payload: [] } })
    .on(createDelivery, (request) => ({ status: 201, body: createdFrom(request) }))
    .on(getDelivery, { status: 200, body: detailFixture(1, { status: 0, robot_id: null, robot_name: null }) })
    // After getDelivery: the fake matches /deliveries/:delivery_id too, and the last registration wins.
    .on(listDeliveryRecipients, (request) => {
      const q = (request.url.searchParams.get('q') ?? '').toLowerCase();
      const payload = RECIPIENTS.filter((recipient) => `${recipient.name} ${recipient.username}`.toLowerCase().includes(q));
      return { status: 200, body: { count: payload.length, payload } };
    });
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  // The detail opened after a request follows the deliveries stream with the page's fetch.
  vi.stubGlobal('fetch', () => Promise.resolve(new FakeEventStream().response));
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const openForm = async (fake: FakeNetwork) => {
  const view = await renderApp({ path: '/deliveries/create', network: fake, config: testConfig({ variant: 'logistics' }) });
  expect(await screen.findByRole('heading', { level: 1, name: 'New delivery' })).toBeInTheDocument();
  return view;
};

const roomSelect = (legend: 'Pickup room' | 'Drop-off room') => within(screen.getByRole('group', { name: legend })).getByLabelText('Room');

const chooseRooms = async (pickup: string, dropoff: string) => {
  // The sole building and floor are chosen for the user; the rooms load for the floor.
  await within(roomSelect('Pickup room')).findByRole('option', { name: pickup });
  await userEvent.selectOptions(roomSelect('Pickup room'), pickup);
  await within(roomSelect('Drop-off room')).findByRole('option', { name: dropoff });
  await userEvent.selectOptions(roomSelect('Drop-off room'), dropoff);
};

const fillItem = async (number: number, description: string, category: string, quantity: string) => {
  await userEvent.type(screen.getByLabelText(`Description (item ${String(number)})`), description);
  await userEvent.selectOptions(screen.getByLabelText(`Category (item ${String(number)})`), category);
  const amount = screen.getByLabelText(`Quantity (item ${String(number)})`);
  await userEvent.clear(amount);
  await userEvent.type(amount, quantity);
};

describe('delivery form', () => {
  it('validates as the server does: both rooms, not the same room, items with a quantity of 1 to 999, a future deliver-by', () => {
    const values = newDeliveryValues();
    expect(validateDelivery(values, 'Europe/Helsinki', NOW)).toEqual({
      pickup: 'validation.required',
      dropoff: 'validation.required',
      'items.0.description': 'validation.required',
      'items.0.category': 'validation.required',
    });
    const filled = {
      ...values,
      pickup: { buildingId: SITE.building, floorId: SITE.floor, roomId: SITE.ward },
      dropoff: { buildingId: SITE.building, floorId: SITE.floor, roomId: SITE.ward },
      items: [{ key: 0, description: 'Insulin', category: 'medication' as const, quantity: '1000' }],
      // 09:00 in Helsinki is before 09:15.
      deliverBy: '2026-11-26T09:00',
    };
    expect(validateDelivery(filled, 'Europe/Helsinki', NOW)).toEqual({
      dropoff: 'deliveries.form.errors.sameRoom',
      'items.0.quantity': 'deliveries.form.errors.quantity',
      deliverBy: 'deliveries.form.errors.deliverByPast',
    });
    expect(validateDelivery({ ...filled, dropoff: { ...filled.dropoff, roomId: SITE.pharmacy }, items: [{ key: 0, description: 'Insulin', category: 'medication' as const, quantity: '3' }], deliverBy: '2026-11-26T09:30' }, 'Europe/Helsinki', NOW)).toEqual({});
  });

  it('shows the errors on their fields, focuses the first one and sends nothing', async () => {
    const fake = network();
    await openForm(fake);
    await chooseRooms('Ward 3A', 'Ward 3A');
    await fillItem(1, 'Insulin', 'Medication', '0');
    fireEvent.change(screen.getByLabelText('Deliver by (optional)'), { target: { value: '2026-11-26T09:00' } });
    await userEvent.click(screen.getByRole('button', { name: 'Request delivery' }));

    expect(roomSelect('Drop-off room')).toHaveAttribute('aria-invalid', 'true');
    expect(roomSelect('Drop-off room')).toHaveFocus();
    expect(screen.getByText('The drop-off must be another room than the pickup.')).toBeInTheDocument();
    expect(screen.getByLabelText('Quantity (item 1)')).toHaveAccessibleDescription('Enter a whole number from 1 to 999.');
    expect(screen.getByLabelText('Deliver by (optional)')).toHaveAccessibleDescription('The deliver-by time must be in the future.');
    expect(fake.callsTo(createDelivery)).toHaveLength(0);
  });

  it('requests the delivery, shows the hand-off PIN once, then opens the delivery', async () => {
    const fake = network();
    const { router } = await openForm(fake);
    await chooseRooms('Pharmacy', 'Ward 3A');
    await fillItem(1, 'Insulin', 'Medication', '2');
    await userEvent.click(screen.getByRole('button', { name: 'Add item' }));
    await fillItem(2, 'Swabs', 'Supplies', '5');
    await userEvent.click(screen.getByRole('button', { name: 'Add item' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove (item 3)' }));
    expect(screen.getAllByTestId('delivery-item-row')).toHaveLength(2);
    await userEvent.selectOptions(screen.getByLabelText('Priority'), 'Urgent');
    await userEvent.type(screen.getByLabelText("Recipient's name"), 'Nina Nurse');
    fireEvent.change(screen.getByLabelText('Deliver by (optional)'), { target: { value: '2026-11-26T11:30' } });
    await userEvent.type(screen.getByLabelText('Notes'), 'Keep cold');
    await userEvent.click(screen.getByRole('button', { name: 'Request delivery' }));

    const dialog = await screen.findByRole('dialog', { name: 'Delivery requested' });
    expect(within(dialog).getByTestId('delivery-created-pin')).toHaveTextContent('4821');
    expect(dialog).toHaveTextContent('It is shown only now: give it to the recipient. They also get it by push.');
    expect(JSON.parse(fake.callsTo(createDelivery)[0]?.body ?? '{}')).toEqual({
      pickup_room_id: SITE.pharmacy,
      dropoff_room_id: SITE.ward,
      items: [
        { description: 'Insulin', category: 'medication', quantity: 2 },
        { description: 'Swabs', category: 'supplies', quantity: 5 },
      ],
      priority: 'urgent',
      recipient_name: 'Nina Nurse',
      // 11:30 in Helsinki.
      deliver_by: '2026-11-26T09:30:00.000Z',
      notes: 'Keep cold',
    });

    await userEvent.click(within(dialog).getByRole('button', { name: 'Open the delivery' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe(`/deliveries/${deliveryId(1)}`);
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Delivery Pharmacy → Ward 3A' })).toBeInTheDocument();
    expect(screen.queryByTestId('delivery-created-pin')).not.toBeInTheDocument();
  });

  it("shows the server's 400 on the field it names", async () => {
    const fake = network().on(createDelivery, {
      status: 400,
      body: {
        error: 'validation_error',
        message: 'Invalid body field "dropoff_room_id"',
        details: { issues: [{ field: 'dropoff_room_id', message: 'room of another organization' }, { field: 'items.0.quantity', message: 'too big' }] },
      },
    });
    await openForm(fake);
    await chooseRooms('Pharmacy', 'Ward 3A');
    await fillItem(1, 'Insulin', 'Medication', '2');
    await userEvent.click(screen.getByRole('button', { name: 'Request delivery' }));
    await waitFor(() => {
      expect(roomSelect('Drop-off room')).toHaveAccessibleDescription('This room cannot be chosen. Choose a room of your organization.');
    });
    expect(roomSelect('Drop-off room')).toHaveFocus();
    expect(screen.getByLabelText('Quantity (item 1)')).toHaveAccessibleDescription('Enter a whole number from 1 to 999.');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('a teleoperator finds the recipient among the users of the organization and picks one (who gets the PIN by push)', async () => {
    const fake = network(['done-teleoperator']);
    await openForm(fake);
    await chooseRooms('Pharmacy', 'Ward 3A');
    await fillItem(1, 'Blood sample', 'Blood', '1');
    const recipient = screen.getByLabelText('Recipient (a user)');
    expect(recipient).toHaveAccessibleDescription(
      'Choose the user who receives it: they get the PIN by push. If the recipient is not a user, leave this empty and type a name.',
    );
    await within(recipient).findByRole('option', { name: 'Aino Virtanen (aino)' });
    await userEvent.type(screen.getByLabelText('Find a user'), 'NIN');
    await waitFor(() => {
      expect(within(recipient).queryByRole('option', { name: 'Aino Virtanen (aino)' })).not.toBeInTheDocument();
    });
    expect(fake.callsTo(listDeliveryRecipients).at(-1)?.url.searchParams.get('q')).toBe('NIN');
    await userEvent.selectOptions(recipient, 'Nina Nurse (nina)');
    expect(screen.queryByLabelText("Recipient's name")).not.toBeInTheDocument();
    // Another search keeps the chosen user offered (and chosen).
    await userEvent.clear(screen.getByLabelText('Find a user'));
    await userEvent.type(screen.getByLabelText('Find a user'), 'aino');
    await within(recipient).findByRole('option', { name: 'Aino Virtanen (aino)' });
    expect(recipient).toHaveValue(NURSE);
    await userEvent.click(screen.getByRole('button', { name: 'Request delivery' }));
    await screen.findByRole('dialog', { name: 'Delivery requested' });
    expect(JSON.parse(fake.callsTo(createDelivery)[0]?.body ?? '{}')).toMatchObject({ recipient_user_id: NURSE, priority: 'routine' });
    expect(fake.callsTo(listUsers)).toHaveLength(0);
  });

  it('says when no user matches, and when more users match than the list shows', async () => {
    const many = Array.from({ length: 50 }, (_, index) => ({ user_id: fixtureId(800 + index), name: `User ${String(index)}`, username: `user${String(index)}` }));
    const fake = network().on(listDeliveryRecipients, (request) =>
      request.url.searchParams.get('q') === 'zz' ? { status: 200, body: { count: 0, payload: [] } } : { status: 200, body: { count: 120, payload: many } },
    );
    await openForm(fake);
    const recipient = screen.getByLabelText('Recipient (a user)');
    await within(recipient).findByRole('option', { name: 'User 0 (user0)' });
    expect(recipient).toHaveAccessibleDescription(expect.stringContaining('Showing 50 of 120 users: type a name to narrow the list.'));
    await userEvent.type(screen.getByLabelText('Find a user'), 'zz');
    await waitFor(() => {
      expect(recipient).toHaveAccessibleDescription(expect.stringContaining('No user matches.'));
    });
    expect(screen.getByLabelText("Recipient's name")).toBeInTheDocument();
  });
});
