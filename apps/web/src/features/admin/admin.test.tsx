import {
  createContact,
  createUser,
  deleteContact,
  deleteUser,
  getAdminRobots,
  listAdminContacts,
  listGroups,
  listUsers,
} from '@uvd/contracts';
import type { Contact, Group, User } from '@uvd/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, sessionUser, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { fixtureId, robotFixture } from '../../testing/robot-fixtures.ts';

const id = fixtureId;

const user = (n: number, username: string): User => ({ id: id(n), username, firstName: 'F', lastName: 'L', email: username, roles: ['done-teleoperator'], groups: [] });
const USERS: User[] = [user(1, 'alice@demo.test'), user(2, 'bob@demo.test'), user(3, 'carol@demo.test')];
const GROUPS: Group[] = [
  { id: id(11), name: 'Ward A' },
  { id: id(12), name: 'Ward B' },
];
/** The signed-in admin's own row (fakeIdentity signs in as sessionUser()). */
const SELF: User = { ...user(5, 'olivia'), id: sessionUser().sub, firstName: 'Olivia', lastName: 'Operator', email: 'olivia@demo.test', roles: ['done-admin'] };
const NURSE: User = {
  ...user(6, 'nina@demo.test'),
  firstName: 'Nina',
  lastName: 'Nurse',
  email: 'nina@demo.test',
  roles: ['done-admin'],
  groups: GROUPS,
};
const CONTACTS: Contact[] = [{ id: id(21), title: 'Technician', name: 'Tom Tech', phone: '+358 40 123', email: 'tom@demo.test' }];

const admin = () => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), ['done-admin'])
    .on(listUsers, { status: 200, body: { data: USERS } })
    .on(listGroups, { status: 200, body: GROUPS })
    .on(getAdminRobots, {
      status: 200,
      body: { count: 2, payload: [robotFixture({ robot_id: id(31), name: 'UVD-1' }), robotFixture({ robot_id: id(32), name: 'Courier-1', kind: 'delivery' })] },
    })
    .on(listAdminContacts, { status: 200, body: { data: { payload: CONTACTS } } });
};

const usernames = () => screen.getAllByTestId('user-row').map((row) => row.querySelector('td')?.textContent);

afterEach(() => {
  vi.useRealTimers();
});

describe('admin dashboard tabs (behaviour §2)', () => {
  it('opens #users by default and keeps the hash in sync with the selected tab', async () => {
    const { router } = await renderApp({ path: '/admin', network: admin() });
    expect(await screen.findByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
    await screen.findAllByTestId('user-row');
    expect(usernames().join()).toContain('alice@demo.test');

    await userEvent.click(screen.getByRole('tab', { name: 'Contacts' }));
    expect(router.location().hash).toBe('#contacts');
    const row = await screen.findByTestId('contact-row');
    expect(within(row).getByText('Technician')).toBeInTheDocument();
    expect(within(row).getByText('Tom Tech')).toBeInTheDocument();
    expect(within(row).getByText('+358 40 123')).toBeInTheDocument();
    expect(within(row).getByText('tom@demo.test')).toBeInTheDocument();
  });

  it('moves between tabs with the arrow keys', async () => {
    const { router } = await renderApp({ path: '/admin#groups', network: admin() });
    const groups = await screen.findByRole('tab', { name: 'Groups' });
    expect(groups).toHaveAttribute('aria-selected', 'true');
    groups.focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(router.location().hash).toBe('#robots');
    expect(screen.getByRole('tab', { name: 'Robots' })).toHaveFocus();
    await userEvent.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(router.location().hash).toBe('#users');
    // From the first tab, Left wraps to the last one.
    await userEvent.keyboard('{ArrowLeft}');
    expect(router.location().hash).toBe('#webhooks');
  });

  it('lists robots read-only, without an add button', async () => {
    await renderApp({ path: '/admin#robots', network: admin() });
    const rows = await screen.findAllByTestId('robot-row');
    // Each robot's kind: a disinfection robot runs jobs, a delivery robot carries deliveries.
    expect(rows.map((row) => row.textContent)).toEqual(['UVD-1Disinfection', 'Courier-1Delivery']);
    expect(screen.getByRole('columnheader', { name: 'Kind' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete/ })).toBeNull();
  });

  it('links each group to its assignment screen', async () => {
    const { router } = await renderApp({ path: '/admin#groups', network: admin() });
    await screen.findAllByTestId('group-row');
    await userEvent.click(screen.getByRole('link', { name: 'Manage group Ward B' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe(`/admin/groups/${id(12)}`);
    });
  });
});

describe('admin dashboard states', () => {
  it('shows the skeleton while loading, then "Failed to load data." on error', async () => {
    let fail: (value: { status: number; body: unknown }) => void = () => undefined;
    const network = admin().on(listUsers, () => new Promise((resolve) => (fail = resolve)));
    await renderApp({ path: '/admin', network });
    expect((await screen.findAllByTestId('skeleton-row')).length).toBeGreaterThan(0);
    fail({ status: 500, body: { error: 'internal', message: 'boom' } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load data.');
  });

  it('on a phone lists each contact as "header: value" lines with its delete button, not as a table', async () => {
    // jsdom has no matchMedia: a phone's is stubbed for this test only.
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query.includes('max-width'), media: query, addEventListener: vi.fn(), removeEventListener: vi.fn() }));
    try {
      await renderApp({ path: '/admin#contacts', network: admin() });
      const row = await screen.findByTestId('contact-row');
      expect(row.tagName).toBe('LI');
      expect(row).toHaveTextContent('Title: Technician');
      expect(row).toHaveTextContent('Full name: Tom Tech');
      expect(row).toHaveTextContent('Email: tom@demo.test');
      expect(within(row).getByRole('button', { name: 'Delete Tom Tech' })).toBeInTheDocument();
      expect(screen.queryByRole('table')).toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('shows the no-data message with a hint to create an item', async () => {
    await renderApp({ path: '/admin#contacts', network: admin().on(listAdminContacts, { status: 200, body: { data: { payload: [] } } }) });
    const empty = await screen.findByTestId('admin-nodata');
    expect(empty).toHaveTextContent('No data yet.');
    expect(empty).toHaveTextContent('Create the first one with the Add button.');
  });

  it('filters by the search box 500 ms after the last keystroke', async () => {
    await renderApp({ path: '/admin', network: admin() });
    await screen.findAllByTestId('user-row');
    vi.useFakeTimers();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search' }), { target: { value: 'BO' } });
    act(() => {
      vi.advanceTimersByTime(499);
    });
    expect(screen.getAllByTestId('user-row')).toHaveLength(3);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(usernames()).toEqual(['bob@demo.test']);
  });
});

describe('users tab: who each user is', () => {
  it('lists each user with name, email, role and groups', async () => {
    await renderApp({ path: '/admin', network: admin().on(listUsers, { status: 200, body: { data: [NURSE, ...USERS] } }) });
    await screen.findAllByTestId('user-row');
    const table = screen.getByRole('table');
    expect(within(table).getAllByRole('columnheader').map((header) => header.textContent)).toEqual([
      'Username',
      'Name',
      'Email',
      'Role',
      'Groups',
      'Actions',
    ]);
    const [nurse, alice] = screen.getAllByTestId('user-row');
    expect([...(nurse?.querySelectorAll('td') ?? [])].map((cell) => cell.textContent)).toEqual([
      'nina@demo.test',
      'Nina Nurse',
      'nina@demo.test',
      'Admin',
      'Ward A, Ward B',
      'Set passwordDelete',
    ]);
    expect(alice).toHaveTextContent('No groups');
  });

  it('on a phone lists each user as "header: value" lines, with role and groups', async () => {
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query.includes('max-width'), media: query, addEventListener: vi.fn(), removeEventListener: vi.fn() }));
    try {
      await renderApp({ path: '/admin', network: admin().on(listUsers, { status: 200, body: { data: [NURSE] } }), language: 'fi' });
      const row = await screen.findByTestId('user-row');
      expect(row.tagName).toBe('LI');
      expect(row).toHaveTextContent('Nimi: Nina Nurse');
      expect(row).toHaveTextContent('Rooli: Ylläpitäjä');
      expect(row).toHaveTextContent('Ryhmät: Ward A, Ward B');
      expect(screen.queryByRole('table')).toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("offers no Delete on the admin's own account and says why", async () => {
    await renderApp({ path: '/admin', network: admin().on(listUsers, { status: 200, body: { data: [...USERS, SELF] } }) });
    await screen.findAllByTestId('user-row');
    expect(screen.getByRole('button', { name: 'Delete alice@demo.test' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete olivia' })).toBeNull();
    const own = screen.getAllByTestId('user-row').find((row) => row.textContent.includes('olivia@demo.test'));
    expect(own).toHaveTextContent('Your own account cannot be deleted.');
  });
});

describe("users tab: the admin's own password", () => {
  it('offers the own row a link to change it as every user does, not Set password (the server refuses that)', async () => {
    const { router } = await renderApp({ path: '/admin', network: admin().on(listUsers, { status: 200, body: { data: [...USERS, SELF] } }) });
    await screen.findAllByTestId('user-row');
    expect(screen.getByRole('button', { name: 'Set password for alice@demo.test' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Set password for olivia' })).toBeNull();
    await userEvent.click(screen.getByRole('link', { name: 'Change your password' }));
    expect(router.location().pathname).toBe('/auth/change-password');
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(`${router.location().pathname}${router.location().hash}`).toBe('/admin#users');
    });
  });
});

describe('add user (behaviour §5)', () => {
  it('shows the validation messages and sends nothing while invalid', async () => {
    const network = admin();
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add user' });
    await userEvent.type(within(dialog).getByLabelText('Email'), 'not-an-email');
    await userEvent.type(within(dialog).getByLabelText('Password'), 'short');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(within(dialog).getByText('First name is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Last name is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Invalid email format')).toBeInTheDocument();
    expect(within(dialog).getByText('Password should be at least 8 characters long')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');
    expect(network.callsTo(createUser)).toHaveLength(0);
  });

  it('creates the user and reloads the list', async () => {
    const created = user(4, 'dave@demo.test');
    const network = admin().on(createUser, () => {
      network.on(listUsers, { status: 200, body: { data: [...USERS, created] } });
      return { status: 201, body: created };
    });
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add user' });
    await userEvent.type(within(dialog).getByLabelText('First name'), 'Dave');
    await userEvent.type(within(dialog).getByLabelText('Last name'), 'Doe');
    await userEvent.type(within(dialog).getByLabelText('Email'), 'Dave@Demo.test');
    await userEvent.type(within(dialog).getByLabelText('Password'), 'long enough');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => {
      expect(usernames()).toContain('dave@demo.test');
    });
    expect(JSON.parse(network.callsTo(createUser)[0]?.body ?? '{}')).toEqual({
      firstName: 'Dave',
      lastName: 'Doe',
      email: 'dave@demo.test',
      password: 'long enough',
      role: 'done-teleoperator',
      groupIds: [],
    });
    expect(await screen.findByText('User was created')).toBeInTheDocument();
  });

  it('gives the new user the chosen role and groups (an admin is not offered Super Admin)', async () => {
    const network = admin().on(createUser, (request) => ({ status: 201, body: { ...user(4, 'dave@demo.test'), ...JSON.parse(request.body) } }));
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add user' });
    const role = within(dialog).getByLabelText<HTMLSelectElement>('Role');
    expect([...role.options].map((option) => option.textContent)).toEqual(['User', 'Admin']);
    await userEvent.type(within(dialog).getByLabelText('First name'), 'Dave');
    await userEvent.type(within(dialog).getByLabelText('Last name'), 'Doe');
    await userEvent.type(within(dialog).getByLabelText('Email'), 'dave@demo.test');
    await userEvent.type(within(dialog).getByLabelText('Password'), 'long enough');
    await userEvent.selectOptions(role, 'Admin');
    const groups = within(dialog).getByRole('group', { name: 'Groups' });
    await userEvent.click(await within(groups).findByRole('checkbox', { name: 'Ward B' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('User was created')).toBeInTheDocument();
    expect(JSON.parse(network.callsTo(createUser)[0]?.body ?? '{}')).toMatchObject({ role: 'done-admin', groupIds: [id(12)] });
  });

  it('offers Super Admin to a super admin', async () => {
    storeSession();
    const network = fakeIdentity(new FakeNetwork(), ['done-superadmin'])
      .on(listUsers, { status: 200, body: { data: USERS } })
      .on(listGroups, { status: 200, body: GROUPS });
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add user' });
    expect([...within(dialog).getByLabelText<HTMLSelectElement>('Role').options].map((option) => option.textContent)).toEqual([
      'User',
      'Admin',
      'Super Admin',
    ]);
  });

  it('closes the dialog and toasts "User was not created" when the server refuses', async () => {
    const network = admin().on(createUser, { status: 409, body: { error: 'conflict', message: 'taken' } });
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add user' });
    await userEvent.type(within(dialog).getByLabelText('First name'), 'A');
    await userEvent.type(within(dialog).getByLabelText('Last name'), 'B');
    await userEvent.type(within(dialog).getByLabelText('Email'), 'alice@demo.test');
    await userEvent.type(within(dialog).getByLabelText('Password'), '12345678');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('User was not created')).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Add user' })).toBeNull();
    });
  });
});

describe('add group and contact (behaviour §5)', () => {
  it('requires a group name', async () => {
    await renderApp({ path: '/admin#groups', network: admin() });
    await screen.findAllByTestId('group-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add group' });
    await userEvent.type(within(dialog).getByLabelText('Group name'), '   ');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(within(dialog).getByText('Group name is required.')).toBeInTheDocument();
  });

  it('shows the contact messages, and toasts "Contact was not created" on failure', async () => {
    const network = admin().on(createContact, { status: 500, body: { error: 'internal', message: 'boom' } });
    await renderApp({ path: '/admin#contacts', network });
    await screen.findAllByTestId('contact-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add contact' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    for (const message of ['Title is required', 'Full name is required', 'Phone Number is required', 'Invalid email format']) {
      expect(within(dialog).getByText(message)).toBeInTheDocument();
    }
    await userEvent.type(within(dialog).getByLabelText('Title'), 'Nurse');
    await userEvent.type(within(dialog).getByLabelText('Full name'), 'Nina');
    await userEvent.type(within(dialog).getByLabelText('Phone number'), '123');
    await userEvent.type(within(dialog).getByLabelText('Email'), 'nina@demo.test');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('Contact was not created')).toBeInTheDocument();
  });
});

describe('deletes ask for confirmation', () => {
  it('deletes a user after confirming and reloads the list', async () => {
    const network = admin().on(deleteUser, () => {
      network.on(listUsers, { status: 200, body: { data: USERS.slice(1) } });
      return { status: 200, body: { data: { [id(1)]: true } } };
    });
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Delete alice@demo.test' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete alice@demo.test?' });
    expect(network.callsTo(deleteUser)).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => {
      expect(usernames()).toEqual(['bob@demo.test', 'carol@demo.test']);
    });
    expect(network.callsTo(deleteUser)[0]?.url.pathname).toBe(`/api/user/delete/${id(1)}`);
  });

  it('cancelling sends nothing', async () => {
    const network = admin();
    await renderApp({ path: '/admin', network });
    await screen.findAllByTestId('user-row');
    await userEvent.click(screen.getByRole('button', { name: 'Delete bob@demo.test' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(network.callsTo(deleteUser)).toHaveLength(0);
  });

  it('toasts "Contact was not deleted" when the reply does not hold the id', async () => {
    const network = admin().on(deleteContact, { status: 200, body: { data: { [id(99)]: true } } });
    await renderApp({ path: '/admin#contacts', network });
    await screen.findAllByTestId('contact-row');
    await userEvent.click(screen.getByRole('button', { name: 'Delete Tom Tech' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Contact was not deleted')).toBeInTheDocument();
  });
});

describe('admin tabs in the history (issue #25 item 6)', () => {
  it('each chosen tab is a history entry: Back from Contacts returns to the tab before', async () => {
    const { router } = await renderApp({ path: '/admin', network: admin() });
    await screen.findByRole('tab', { name: 'Users', selected: true });
    await userEvent.click(screen.getByRole('tab', { name: 'Groups' }));
    await userEvent.click(screen.getByRole('tab', { name: 'Contacts' }));
    expect(router.location().hash).toBe('#contacts');

    await router.back();
    expect(router.location().hash).toBe('#groups');
    expect(screen.getByRole('tab', { name: 'Groups' })).toHaveAttribute('aria-selected', 'true');
    await router.back();
    expect(router.location().pathname).toBe('/admin');
    expect(screen.getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
  });
});
