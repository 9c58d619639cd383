import {
  addRobotsToGroup,
  addRoomsToGroup,
  addUsersToGroup,
  getAdminGroupRooms,
  getAdminRobots,
  getAdminRooms,
  getGroup,
  getGroupRobots,
  listGroupUsers,
  listUsers,
  removeRobotsFromGroup,
  removeRoomsFromGroup,
  removeUserFromGroup,
} from '@uvd/contracts';
import type { Room, User } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { fixtureId as id, robotFixture } from '../../testing/robot-fixtures.ts';

const GROUP = { id: id(100), name: 'Ward A' };
const user = (n: number, username: string): User => ({ id: id(n), username, firstName: 'F', lastName: 'L', email: username, roles: ['done-teleoperator'], groups: [] });
const USERS = [user(1, 'alice'), user(2, 'bob'), user(3, 'carol')];
const room = (n: number, name: string): Room => ({
  room_id: id(n),
  room_name: name,
  order_no: 0,
  dose: null,
  floor_id: id(90),
  building_id: id(91),
  ready_for_disinfection: false,
});
const ROOMS = [room(11, 'Room 101'), room(12, 'Room 102')];
const ROBOTS = [robotFixture({ robot_id: id(21), name: 'UVD-1' }), robotFixture({ robot_id: id(22), name: 'UVD-2' })];

const admin = () => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), ['done-admin'])
    .on(getGroup, { status: 200, body: GROUP })
    .on(listUsers, { status: 200, body: { data: USERS } })
    .on(listGroupUsers, { status: 200, body: [{ id: id(1), username: 'alice' }] })
    .on(getAdminRooms, { status: 200, body: { data: ROOMS } })
    .on(getAdminGroupRooms, { status: 200, body: { data: [{ groupId: GROUP.id, group: GROUP.name, rooms: [ROOMS[1]] }] } })
    // Registered after the group robots: the fake matches path suffixes, and the last registration wins.
    .on(getGroupRobots, { status: 200, body: [] })
    .on(getAdminRobots, { status: 200, body: { count: 2, payload: ROBOTS } });
};

const path = (hash = '') => `/admin/groups/${GROUP.id}${hash}`;

/** The names in one column (0 = "another", 1 = members). */
const column = (index: number) =>
  within(screen.getByTestId('assignment-table'))
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.querySelectorAll('td')[index]?.querySelector('span')?.textContent)
    .filter((name) => name !== undefined);

const open = async (network: FakeNetwork, hash = '') => {
  const view = await renderApp({ path: path(hash), network });
  await screen.findByTestId('assignment-table');
  return view;
};

describe('group assignment tabs and columns (behaviour §2)', () => {
  it('opens #users by default with "another" beside the group\'s users', async () => {
    await open(admin());
    expect(screen.getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('columnheader', { name: 'another' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Ward A users' })).toBeInTheDocument();
    expect(column(0)).toEqual(['bob', 'carol']);
    expect(column(1)).toEqual(['alice']);
  });

  it('switches tabs by hash and click, rooms from the first element\'s rooms field', async () => {
    const { router } = await open(admin(), '#locations');
    expect(screen.getByRole('tab', { name: 'Rooms' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('columnheader', { name: 'Ward A rooms' })).toBeInTheDocument();
    expect(column(0)).toEqual(['Room 101']);
    expect(column(1)).toEqual(['Room 102']);
    await userEvent.click(screen.getByRole('tab', { name: 'Robots' }));
    expect(router.location().hash).toBe('#robots');
    expect(await screen.findByRole('columnheader', { name: 'Ward A robots' })).toBeInTheDocument();
    expect(column(0)).toEqual(['UVD-1', 'UVD-2']);
  });

  it('treats every room as unassigned when the group has no rooms element', async () => {
    await open(admin().on(getAdminGroupRooms, { status: 200, body: { data: [] } }), '#locations');
    expect(column(0)).toEqual(['Room 101', 'Room 102']);
    expect(column(1)).toEqual([]);
  });

  it('filters both columns by name, case-insensitively', async () => {
    await open(admin());
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search by name' }), 'AL');
    await waitFor(() => {
      expect(column(0)).toEqual([]);
    });
    expect(column(1)).toEqual(['alice']);
  });

  it('shows the loader, then assignView.loadError', async () => {
    let fail: (value: { status: number; body: unknown }) => void = () => undefined;
    const failed = new Promise<{ status: number; body: unknown }>((resolve) => (fail = resolve));
    await renderApp({ path: path(), network: admin().on(listGroupUsers, () => failed) });
    // The screen is up (its tabs), its panel busy with the loader while the group's users are read.
    await screen.findByRole('tablist');
    expect(within(screen.getByRole('tabpanel')).getByTestId('page-spinner')).toBeInTheDocument();
    fail({ status: 500, body: { error: 'internal', message: 'boom' } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load the group.');
  });

  it('shows the empty message of the tab', async () => {
    await renderApp({ path: path('#robots'), network: admin().on(getAdminRobots, { status: 200, body: { count: 0, payload: [] } }) });
    expect(await screen.findByTestId('assign-nodata')).toHaveTextContent('No robots');
  });
});

describe('moving and submitting', () => {
  it('moves items between columns, each in exactly one', async () => {
    await open(admin());
    await userEvent.click(screen.getByRole('button', { name: 'Add bob to the group' }));
    expect(column(0)).toEqual(['carol']);
    expect(column(1)).toEqual(['alice', 'bob']);
    await userEvent.click(screen.getByRole('button', { name: 'Remove alice from the group' }));
    expect(column(0)).toEqual(['alice', 'carol']);
    expect(column(1)).toEqual(['bob']);
  });

  it('toasts assignView.empty when nothing moved (or moved back) and sends nothing', async () => {
    const network = admin();
    await open(network);
    await userEvent.click(screen.getByRole('button', { name: 'Add bob to the group' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove bob from the group' }));
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Nothing was moved.')).toBeInTheDocument();
    expect(network.callsTo(addUsersToGroup)).toHaveLength(0);
    expect(network.callsTo(removeUserFromGroup)).toHaveLength(0);
  });

  it('submits the moves of every tab and toasts the add and remove successes', async () => {
    const network = admin()
      .on(addUsersToGroup, { status: 200, body: [{ id: id(1), username: 'alice' }, { id: id(2), username: 'bob' }] })
      .on(addRobotsToGroup, { status: 200, body: { data: true } })
      .on(removeUserFromGroup, { status: 200, body: [] });
    await open(network);
    await userEvent.click(screen.getByRole('button', { name: 'Add bob to the group' }));
    await userEvent.click(screen.getByRole('tab', { name: 'Robots' }));
    await screen.findByRole('columnheader', { name: 'Ward A robots' });
    await userEvent.click(screen.getByRole('button', { name: 'Add UVD-2 to the group' }));
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Added to the group')).toBeInTheDocument();
    expect(JSON.parse(network.callsTo(addUsersToGroup)[0]?.body ?? '[]')).toEqual([id(2)]);
    expect(network.callsTo(addUsersToGroup)[0]?.url.pathname).toBe(`/api/user/update/group/${GROUP.id}`);
    const robotCall = network.callsTo(addRobotsToGroup)[0];
    expect(robotCall?.url.searchParams.get('group_id')).toBe(GROUP.id);
    expect(JSON.parse(robotCall?.body ?? '[]')).toEqual([id(22)]);
    expect(network.callsTo(removeUserFromGroup)).toHaveLength(0);
    expect(network.callsTo(removeRobotsFromGroup)).toHaveLength(0);
  });

  it('removes rooms with room_list and group, toasting the remove success', async () => {
    const network = admin().on(removeRoomsFromGroup, { status: 200, body: { data: true } });
    await open(network, '#locations');
    await userEvent.click(screen.getByRole('button', { name: 'Remove Room 102 from the group' }));
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Removed from the group')).toBeInTheDocument();
    expect(network.callsTo(addRoomsToGroup)).toHaveLength(0);
    const call = network.callsTo(removeRoomsFromGroup)[0];
    expect(call?.url.searchParams.getAll('room_list').join(',')).toBe(id(12));
    expect(call?.url.searchParams.get('group')).toBe(GROUP.id);
  });

  it('restores the previous lists and toasts assignView.assignError when the server refuses', async () => {
    const network = admin().on(addUsersToGroup, { status: 500, body: { error: 'internal', message: 'boom' } });
    await open(network);
    await userEvent.click(screen.getByRole('button', { name: 'Add carol to the group' }));
    expect(column(1)).toEqual(['alice', 'carol']);
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('The changes could not be saved.')).toBeInTheDocument();
    expect(column(0)).toEqual(['bob', 'carol']);
    expect(column(1)).toEqual(['alice']);
  });

  it('goes back to the groups tab of the dashboard', async () => {
    const { router } = await open(admin());
    await userEvent.click(screen.getByRole('button', { name: 'Back' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/admin');
    });
    expect(router.location().hash).toBe('#groups');
  });
});

describe('more than one page (behaviour §9: 50 at a time)', () => {
  it('reads rooms and group rooms page by page, so room 51 and beyond are listed in the right column', async () => {
    const many = Array.from({ length: 52 }, (_, index) => room(1000 + index, `Room ${String(index + 1).padStart(3, '0')}`));
    const network = admin()
      .on(getAdminRooms, (request) => {
        const offset = Number(request.url.searchParams.get('offset'));
        return { status: 200, body: { data: many.slice(offset, offset + 50) } };
      })
      .on(getAdminGroupRooms, (request) => {
        const offset = Number(request.url.searchParams.get('offset'));
        const rooms = offset === 0 ? many.slice(1, 51) : [many[51]];
        return { status: 200, body: { data: [{ groupId: GROUP.id, group: GROUP.name, rooms }] } };
      });
    await open(network, '#locations');
    expect(column(0)).toEqual(['Room 001']);
    expect(column(1)).toHaveLength(51);
    expect(network.callsTo(getAdminRooms).map((call) => call.url.searchParams.get('offset'))).toEqual(['0', '50']);
    expect(network.callsTo(getAdminRooms)[0]?.url.searchParams.get('limit')).toBe('50');
  });
});
