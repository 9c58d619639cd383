import { getMyProfile, listContacts } from '@uvd/contracts';
import type { Contact, Role } from '@uvd/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, sessionUser, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';

const contact = (overrides: Partial<Contact> = {}): Contact => ({
  id: '0b6f3c1e-2d4a-4e8f-9a1b-3c5d7e9f1a2b',
  title: 'Technical support',
  name: 'Tero Tekniikka',
  phone: '+358 40 123 4567',
  email: 'support@uvd.test',
  ...overrides,
});

const signedIn = (roles: Role[] = ['done-teleoperator']) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), roles);
};

const withContacts = (network: FakeNetwork, contacts: Contact[]) =>
  network.on(listContacts, { status: 200, body: { data: { payload: contacts } } });

const infoSection = () => screen.getByRole('region', { name: 'Olivia Operator' });
const valueOf = (term: string) => {
  const dt = within(infoSection()).getByText(term, { selector: 'dt' });
  return dt.nextElementSibling?.textContent;
};

describe('profile (behaviour §2)', () => {
  it("shows the user's name, username, email, organization, groups and translated role label", async () => {
    const network = withContacts(signedIn(['done-teleoperator']), []);
    network.on(getMyProfile, { status: 200, body: sessionUser(['done-teleoperator'], { groups: ['Ward A', 'Ward B'] }) });
    await renderApp({ path: '/profile', network });

    expect(await screen.findByRole('heading', { level: 1, name: 'Profile' })).toBeInTheDocument();
    await screen.findByRole('region', { name: 'Olivia Operator' });
    expect(valueOf('Name')).toBe('Olivia Operator');
    expect(valueOf('Username')).toBe('olivia');
    expect(valueOf('Email')).toBe('olivia@demo.test');
    expect(valueOf('Organization')).toBe('demo');
    expect(valueOf('Groups')).toBe('Ward A, Ward B');
    expect(within(infoSection()).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['User']);
  });

  it('labels admin and super admin roles, in the chosen language', async () => {
    const network = withContacts(signedIn(['done-admin', 'done-superadmin']), []);
    await renderApp({ path: '/profile', network });
    await screen.findByRole('region', { name: 'Olivia Operator' });
    expect(within(infoSection()).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['Admin', 'Super Admin']);
  });

  it('translates role labels in Finnish', async () => {
    const network = withContacts(signedIn(['done-admin']), []);
    await renderApp({ path: '/profile', network, language: 'fi' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Profiili' })).toBeInTheDocument();
    await screen.findByRole('region', { name: 'Olivia Operator' });
    expect(within(infoSection()).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['Ylläpitäjä']);
  });

  it('shows skeletons while loading', async () => {
    const network = signedIn().on(listContacts, { hang: true });
    await renderApp({ path: '/profile', network });
    await screen.findByRole('heading', { level: 1, name: 'Profile' });
    const contacts = screen.getByRole('region', { name: 'Contacts' });
    expect(within(contacts).getByTestId('skeleton')).toBeInTheDocument();
    expect(within(contacts).getByRole('status')).toHaveTextContent('Loading');
  });

  it('lists contacts with title, name, a tel: link and a mailto: link', async () => {
    const network = withContacts(signedIn(), [
      contact(),
      contact({ id: '1c7a4d2f-3e5b-4f9a-8b2c-4d6e8f0a2b3c', title: 'Ward nurse', name: 'Niina Nurse', phone: '0401234', email: 'niina@demo.test' }),
    ]);
    await renderApp({ path: '/profile', network });

    const contacts = await screen.findByRole('region', { name: 'Contacts' });
    expect(await within(contacts).findByRole('heading', { level: 3, name: 'Technical support' })).toBeInTheDocument();
    expect(within(contacts).getByRole('heading', { level: 3, name: 'Ward nurse' })).toBeInTheDocument();
    const [first] = within(contacts).getAllByRole('listitem');
    expect(first).toHaveTextContent('Tero Tekniikka, +358 40 123 4567, support@uvd.test');
    expect(within(contacts).getByRole('link', { name: 'Phone +358 40 123 4567' })).toHaveAttribute('href', 'tel:+358401234567');
    expect(within(contacts).getByRole('link', { name: 'Email support@uvd.test' })).toHaveAttribute('href', 'mailto:support@uvd.test');
    expect(within(contacts).getByRole('link', { name: 'Phone 0401234' })).toHaveAttribute('href', 'tel:0401234');
  });

  it('says profileInfo.noContacts when the organization has none', async () => {
    await renderApp({ path: '/profile', network: withContacts(signedIn(), []) });
    expect(await screen.findByText('No contacts')).toBeInTheDocument();
  });

  it('says profileInfo.contactError when the contacts fail, and still shows the profile', async () => {
    const network = signedIn().on(listContacts, { status: 500, body: { error: 'internal', message: 'boom' } });
    await renderApp({ path: '/profile', network });
    expect(await screen.findByText('Failed to load contacts.')).toBeInTheDocument();
    expect(await screen.findByRole('region', { name: 'Olivia Operator' })).toBeInTheDocument();
  });

  it('says profileInfo.error when the profile fails to load', async () => {
    const network = withContacts(signedIn(), [contact()]);
    // The session restore reads the profile once; the screen's own read then fails.
    network.on(getMyProfile, { networkError: true });
    network.on(getMyProfile, { status: 200, body: sessionUser() }, { times: 1 });
    await renderApp({ path: '/profile', network });
    expect(await screen.findByText('Failed to load your profile.')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 3, name: 'Technical support' })).toBeInTheDocument();
  });
});
