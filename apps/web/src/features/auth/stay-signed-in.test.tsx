import { getMyProfile, postLogout, postToken } from '@uvd/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { KEPT_SESSION_KEYS, SESSION_KEYS } from '../../lib/storage.ts';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';

const STAY = 'Stay signed in on this device';

const signIn = async (user: ReturnType<typeof userEvent.setup>, { stay }: { stay: boolean }) => {
  await screen.findByRole('heading', { level: 1, name: 'Sign in' });
  const organization = screen.getByLabelText('Organization');
  if (!(organization as HTMLInputElement).value) await user.type(organization, 'demo');
  await user.type(screen.getByLabelText('Username'), 'olivia');
  await user.type(screen.getByLabelText('Password'), 'secret');
  if (stay) await user.click(screen.getByRole('checkbox', { name: STAY }));
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
};

/** The browser's last tab closes and a new one opens: session storage is gone, local storage stays. */
const closeLastTab = (unmount: () => void) => {
  unmount();
  window.sessionStorage.clear();
};

describe('"Stay signed in on this device" (issue #25 item 11)', () => {
  it('is off by default, and says to leave it off on a shared computer', async () => {
    await renderApp({ path: '/auth/demo', network: new FakeNetwork() });
    const box = await screen.findByRole('checkbox', { name: STAY });
    expect(box).not.toBeChecked();
    expect(box).toHaveAccessibleDescription(/Leave this off on a shared computer/);
  });

  it('unticked: the session lives in the tab only, so a new tab after the last one closed shows sign-in', async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork());
    const first = await renderApp({ path: '/auth/demo', network });
    await signIn(user, { stay: false });
    await waitFor(() => {
      expect(first.router.location().pathname).toBe('/jobs');
    });
    // The grant of behaviour §7: an offline session asked for in the query, whichever the choice.
    expect(network.callsTo(postToken)[0]?.url.searchParams.get('scope')).toBe('offline_access');
    expect(window.localStorage.getItem(KEPT_SESSION_KEYS.refreshToken)).toBeNull();

    closeLastTab(first.unmount);
    const second = await renderApp({ path: '/jobs', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(second.router.location().pathname).toBe('/auth');
  });

  it('ticked: a new tab after the last one closed is signed in; refreshes rotate the kept tokens; sign-out ends it', async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork());
    const first = await renderApp({ path: '/auth/demo', network });
    await signIn(user, { stay: true });
    await waitFor(() => {
      expect(first.router.location().pathname).toBe('/jobs');
    });
    const kept = window.localStorage.getItem(KEPT_SESSION_KEYS.refreshToken);
    expect(kept).toBe(window.sessionStorage.getItem(SESSION_KEYS.refreshToken));
    expect(window.localStorage.getItem(KEPT_SESSION_KEYS.realm)).toBe('demo');

    // A refresh rotates the pair: the kept one follows, the spent one is kept nowhere.
    await act(() => first.services.auth.refresh());
    const rotated = window.localStorage.getItem(KEPT_SESSION_KEYS.refreshToken);
    expect(rotated).not.toBe(kept);
    expect(rotated).toBe(window.sessionStorage.getItem(SESSION_KEYS.refreshToken));
    expect(network.callsTo(postToken).at(-1)?.form.get('refresh_token')).toBe(kept);

    closeLastTab(first.unmount);
    const profileReads = network.callsTo(getMyProfile).length;
    const second = await renderApp({ path: '/jobs', network });
    await waitFor(() => {
      expect(second.services.auth.getSnapshot().status).toBe('authenticated');
    });
    expect(second.router.location().pathname).toBe('/jobs');
    expect(network.callsTo(getMyProfile).length).toBeGreaterThan(profileReads);

    // Sign-out ends the session at the provider with the current refresh token and forgets it on this device.
    const current = window.sessionStorage.getItem(SESSION_KEYS.refreshToken);
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(network.callsTo(postLogout).at(-1)?.form.get('refresh_token')).toBe(current);
    for (const key of Object.values(KEPT_SESSION_KEYS)) expect(window.localStorage.getItem(key)).toBeNull();

    closeLastTab(second.unmount);
    const third = await renderApp({ path: '/jobs', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(third.router.location().pathname).toBe('/auth');
  });

  it('a refused kept session (invalid_grant) is forgotten and shows sign-in', async () => {
    window.localStorage.setItem(KEPT_SESSION_KEYS.accessToken, 'old-access');
    window.localStorage.setItem(KEPT_SESSION_KEYS.refreshToken, 'old-refresh');
    window.localStorage.setItem(KEPT_SESSION_KEYS.realm, 'demo');
    const network = fakeIdentity(new FakeNetwork()).on(postToken, { status: 400, body: { error: 'invalid_grant', error_description: 'Session not active' } });
    await renderApp({ path: '/jobs', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(network.callsTo(postToken)[0]?.form.get('refresh_token')).toBe('old-refresh');
    expect(window.localStorage.getItem(KEPT_SESSION_KEYS.refreshToken)).toBeNull();
  });
});

describe('a deep link opened while signed out (issue #25 item 6)', () => {
  it('lands on that job after sign-in', async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork());
    const { router } = await renderApp({ path: '/job/job-42', network });
    await signIn(user, { stay: false });
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(router.location().state).toEqual({ expandedJobId: 'job-42' });
  });
});
