import { postToken } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readJobFocus } from '../features/jobs/job-focus.ts';
import { SESSION_KEYS } from '../lib/storage.ts';
import { FakeNetwork } from '../testing/fake-network.ts';
import { fakeIdentity, storeSession, testConfig } from '../testing/fixtures.ts';
import { renderApp } from '../testing/render-app.tsx';
import type { Role } from '@uvd/contracts';

const signedIn = (roles: Role[]) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), roles);
};

const navigation = () => screen.getByRole('navigation', { name: 'Main navigation' });
const navLabels = () => within(navigation()).getAllByRole('link').map((link) => link.textContent);

afterEach(() => {
  vi.useRealTimers();
});

describe('routes and guards (behaviour §2)', () => {
  it('sends a signed-out visitor of an authenticated screen to sign-in', async () => {
    const { router } = await renderApp({ path: '/robots' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(router.location().pathname).toBe('/auth');
  });

  it('redirects / to the jobs list once the stored session is restored', async () => {
    const { router } = await renderApp({ path: '/', network: signedIn(['done-teleoperator']) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Jobs' })).toBeInTheDocument();
    expect(router.location().pathname).toBe('/jobs');
  });

  it('sends a signed-in user away from the visitor screens to root', async () => {
    for (const path of ['/auth', '/auth/demo', '/auth/sign-up', '/auth/restore-my-password']) {
      const { router, unmount } = await renderApp({ path, network: signedIn(['done-teleoperator']) });
      await waitFor(() => {
        expect(router.location().pathname).toBe('/jobs');
      });
      unmount();
    }
  });

  it('keeps the admin screens from a teleoperator and hides the admin link', async () => {
    const { router } = await renderApp({ path: '/admin', network: signedIn(['done-teleoperator']) });
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(navLabels()).toEqual(['Jobs', 'Robots', 'Profile', 'Map', 'Logs', 'Reports', 'Settings']);

    await router.navigate('/admin/groups/0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01');
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
  });

  it('opens the admin screens and shows the admin link to the restricted roles', async () => {
    for (const role of ['done-admin', 'done-superadmin'] as const) {
      const { router, unmount } = await renderApp({ path: '/admin', network: signedIn([role]) });
      expect(await screen.findByRole('heading', { level: 1, name: 'Administration' })).toBeInTheDocument();
      expect(navLabels()).toEqual(['Jobs', 'Robots', 'Profile', 'Admin', 'Map', 'Logs', 'Reports', 'Settings']);
      await router.navigate('/admin/groups/0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01');
      expect(await screen.findByRole('heading', { level: 1, name: 'Group assignment' })).toBeInTheDocument();
      unmount();
    }
  });

  it('the logistics variant shows only deliveries and starts there', async () => {
    const { router } = await renderApp({ path: '/', network: signedIn(['done-admin']), config: testConfig({ variant: 'logistics' }) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Deliveries' })).toBeInTheDocument();
    expect(router.location().pathname).toBe('/deliveries');
    expect(navLabels()).toEqual(['Deliveries']);
  });

  it('/job/:jobId opens the jobs list asking it to expand that job; no_job and no id open the plain list', async () => {
    const jobId = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
    const { router } = await renderApp({ path: `/job/${jobId}`, network: signedIn(['done-teleoperator']) });
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(readJobFocus(router.location().state)).toBe(jobId);

    await router.navigate('/job/no_job');
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(readJobFocus(router.location().state)).toBeNull();

    await router.navigate('/job');
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
  });

  it('every screen of the table renders its translated page for a signed-in admin', async () => {
    const { router } = await renderApp({ path: '/jobs', network: signedIn(['done-admin']) });
    const screens: [string, string][] = [
      ['/jobs/create', 'New job'],
      ['/jobs/edit/0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01', 'Edit job'],
      ['/map?job=x&robot=y&show_trajectory=true', 'Map'],
      ['/profile', 'Profile'],
      ['/robots', 'Robots'],
      ['/settings', 'Settings'],
      ['/logs', 'Logs'],
      ['/deliveries', 'Deliveries'],
      ['/deliveries/create', 'New delivery'],
      ['/deliveries/42', 'Delivery'],
    ];
    for (const [path, title] of screens) {
      await router.navigate(path);
      expect(await screen.findByRole('heading', { level: 1, name: title }), path).toBeInTheDocument();
    }
  });

  it('shows the not-found page for anything else, with a way home', async () => {
    const user = userEvent.setup();
    const { router } = await renderApp({ path: '/no/such/screen', network: signedIn(['done-teleoperator']) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Back to home' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
  });

  it('a signed-in user keeps the navigation on the not-found page, and its heading starts where every screen\'s does', async () => {
    const user = userEvent.setup();
    const { router } = await renderApp({ path: '/no/such/screen', network: signedIn(['done-teleoperator']) });
    const heading = await screen.findByRole('heading', { level: 1, name: 'Page not found' });
    expect(navLabels()).toEqual(['Jobs', 'Robots', 'Profile', 'Map', 'Logs', 'Reports', 'Settings']);
    // Inside the one main region of the app's frame, not centred apart from the other screens' headings.
    expect(screen.getAllByRole('main')).toHaveLength(1);
    expect(heading.closest('main')).toHaveClass('app-main');
    expect(heading.closest('.text-center')).toBeNull();
    await user.click(within(navigation()).getByRole('link', { name: 'Logs' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/logs');
    });
  });

  it('the not-found page shows to signed-out visitors too, and home then leads to sign-in', async () => {
    const user = userEvent.setup();
    const { router } = await renderApp({ path: '/jobs/edit' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).toBeNull();
    await user.click(screen.getByRole('link', { name: 'Back to home' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/auth');
    });
  });

  it('logout ends the session and returns to sign-in', async () => {
    const user = userEvent.setup();
    const network = signedIn(['done-teleoperator']);
    const { router } = await renderApp({ path: '/robots', network });
    await screen.findByRole('heading', { level: 1, name: 'Robots' });
    await user.click(screen.getByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(router.location().pathname).toBe('/auth');
    expect(window.sessionStorage.getItem(SESSION_KEYS.accessToken)).toBeNull();
  });

  it('signing in from a guarded screen returns to it', async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork(), ['done-teleoperator']);
    const { router } = await renderApp({ path: '/logs', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await user.type(screen.getByLabelText('Organization'), 'demo');
    await user.type(screen.getByLabelText('Username'), 'olivia');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Logs' })).toBeInTheDocument();
    expect(router.location().pathname).toBe('/logs');
    expect(network.callsTo(postToken)).toHaveLength(1);
  });

  it('moves focus to the main region after a navigation and offers a skip link', async () => {
    const user = userEvent.setup();
    await renderApp({ path: '/jobs', network: signedIn(['done-teleoperator']) });
    await screen.findByRole('heading', { level: 1, name: 'Jobs' });
    expect(screen.getByRole('link', { name: 'Skip to main content' })).toHaveAttribute('href', '#main-content');
    await user.click(within(navigation()).getByRole('link', { name: 'Robots' }));
    await screen.findByRole('heading', { level: 1, name: 'Robots' });
    expect(screen.getByRole('main')).toHaveFocus();
    expect(within(navigation()).getByRole('link', { name: 'Robots' })).toHaveAttribute('aria-current', 'page');
  });

  it('a refused token refresh ends the session: back to sign-in with a toast', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const network = signedIn(['done-teleoperator']);
    const { router } = await renderApp({ path: '/robots', network });
    await screen.findByRole('heading', { level: 1, name: 'Robots' });
    network.on(postToken, { status: 400, body: { error: 'invalid_grant', error_description: 'Token is not active' } });

    await vi.advanceTimersByTimeAsync(890_000);
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(router.location().pathname).toBe('/auth');
    expect(await screen.findByText('Your session has ended. Please sign in again.')).toBeInTheDocument();
  });

  it('the collapsed menu opens with its toggle and closes once a link is followed', async () => {
    const user = userEvent.setup();
    await renderApp({ path: '/jobs', network: signedIn(['done-teleoperator']) });
    await screen.findByRole('heading', { level: 1, name: 'Jobs' });
    const toggle = screen.getByRole('button', { name: 'Toggle navigation' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(document.getElementById('main-navigation')).toHaveClass('show');
    await user.click(within(navigation()).getByRole('link', { name: 'Logs' }));
    await screen.findByRole('heading', { level: 1, name: 'Logs' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(document.getElementById('main-navigation')).not.toHaveClass('show');
  });
});
