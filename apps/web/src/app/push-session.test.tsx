import { confirmAction, listLanguages, listTimezones, listWaitingActions } from '@uvd/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { waitingActionsKey } from '../features/jobs/api/jobs-query.ts';
import { createWebPushDevice } from '../lib/push/web-push-device.ts';
import { PUSH_TOAST_MS } from '../lib/toast.ts';
import { FakeNetwork } from '../testing/fake-network.ts';
import { FakePushBrowser } from '../testing/fake-push-browser.ts';
import { VAPID_PUBLIC_KEY, fakeIdentity, storeSession, testConfig } from '../testing/fixtures.ts';
import { MemorySessionMirror } from '../testing/memory-session-mirror.ts';
import { renderApp } from '../testing/render-app.tsx';
import { promptPushFixture, PUSH_ACTION, PUSH_JOB } from '../testing/push-fixtures.ts';

const JOB = PUSH_JOB;
const ACTION = PUSH_ACTION;

const promptPush = promptPushFixture;

/** Signed in on the settings screen (its two lists answered), with a browser whose service worker can offer pushes. */
const openConsole = async (network: FakeNetwork = fakeIdentity(new FakeNetwork())) => {
  storeSession();
  network.on(listLanguages, { status: 200, body: [['English', 'en']] }).on(listTimezones, { status: 200, body: [['Europe/Helsinki', '+02:00']] });
  const browser = new FakePushBrowser();
  const view = await renderApp({
    path: '/settings',
    network,
    pushDevice: createWebPushDevice({ vapidPublicKey: VAPID_PUBLIC_KEY, browser: browser.browser() }),
  });
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
  // The device chunk loads after the first screen; from then on the page takes the worker's offers.
  await waitFor(() => {
    expect(browser.listening).toBe(true);
  });
  return { ...view, browser };
};

/** Waits until the toast leaves: react-toastify's exit animation, whose end jsdom has to be told. */
const closed = async (toast: HTMLElement, title: string) => {
  const frame = toast.closest<HTMLElement>('.Toastify__toast');
  await waitFor(() => {
    expect(frame?.className).toMatch(/bounce-exit/);
  });
  if (frame) fireEvent.animationEnd(frame);
  await waitFor(() => {
    expect(screen.queryByText(title)).not.toBeInTheDocument();
  });
};

const toastOf = async (title: string) => (await screen.findByText(title)).closest<HTMLElement>('[data-testid=push-toast]') ?? document.body;

describe('pushes while the console is in front (behaviour §9)', () => {
  it('shows an offered push as a toast for 20 s with a close button, tells the worker it was shown, and answers the prompt from its Confirm button', async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork()).on(confirmAction, { status: 200, body: { data: true } });
    const { browser } = await openConsole(network);

    expect(browser.offerPush(promptPush())).toEqual([{ shown: true }]);

    const toast = await toastOf('UVD-1 is waiting');
    expect(toast).toHaveTextContent('Confirm the room is empty to enter: Room 101 (Morning round)');
    const progress = document.querySelector<HTMLElement>('.Toastify__progress-bar');
    expect(PUSH_TOAST_MS).toBe(20_000);
    expect(progress?.style.animationDuration).toBe('20000ms');
    expect(screen.getByRole('button', { name: 'Close message' })).toBeInTheDocument();

    await user.click(within(toast).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => {
      expect(network.callsTo(confirmAction)).toHaveLength(1);
    });
    expect(JSON.parse(network.callsTo(confirmAction)[0]?.body ?? 'null')).toEqual({ action_id: ACTION, confirm: true });
    // Answered, the toast closes.
    await closed(toast, 'UVD-1 is waiting');
  });

  it("Skip answers false; an answer that no longer applies says so; Open shows the push's job", async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork()).on(confirmAction, { status: 409, body: { error: 'job_state', message: 'The action was already answered.' } });
    const { browser, router } = await openConsole(network);

    browser.offerPush(promptPush());
    const toast = await toastOf('UVD-1 is waiting');
    await user.click(within(toast).getByRole('button', { name: 'Skip' }));
    expect(await screen.findByText('This prompt was already answered, or the robot no longer asks.')).toBeInTheDocument();
    expect(JSON.parse(network.callsTo(confirmAction)[0]?.body ?? 'null')).toEqual({ action_id: ACTION, confirm: false });

    browser.offerPush(promptPush({ push_id: 'push-2', title: 'Job completed', kind: 'job_finished', action_id: undefined, choices: undefined }));
    const info = await toastOf('Job completed');
    expect(within(info).queryByRole('button', { name: 'Confirm' })).not.toBeInTheDocument();
    await user.click(within(info).getByRole('link', { name: 'Open' }));
    // `/job/:id` opens the jobs list with that job expanded (job-redirect.tsx), at once when its route is loaded.
    await waitFor(() => {
      expect(router.location()).toMatchObject({ pathname: '/jobs', state: { expandedJobId: JOB } });
    });
  });

  it('takes a prompt\'s toast away once the prompt is answered elsewhere (another tab, the banner, the robot)', async () => {
    const waiting = {
      action_id: ACTION,
      job_id: JOB,
      button: { text: 'wait_to_enter', disabled: false },
      job_name: 'Morning round',
      robot_id: '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01',
      robot_name: 'UVD-1',
      room_id: null,
      room_name: 'Room 101',
      created_at: '2026-11-20T09:59:58Z',
    };
    const network = fakeIdentity(new FakeNetwork()).on(listWaitingActions, { status: 200, body: { payload: [waiting] } });
    const { browser, services } = await openConsole(network);
    browser.offerPush(promptPush());
    const toast = await toastOf('UVD-1 is waiting');
    await waitFor(() => {
      expect(services.queryClient.getQueryData(waitingActionsKey)).toEqual({ payload: [waiting] });
    });
    expect(within(toast).getByRole('button', { name: 'Confirm' })).toBeEnabled();

    // What the actions stream does when the prompt is answered anywhere (use-job-streams.ts).
    services.queryClient.setQueryData(waitingActionsKey, { payload: [] });
    await closed(toast, 'UVD-1 is waiting');
  });

  it("shows a push delivered twice once, and leaves another organization's push and anything else unanswered", async () => {
    const { browser } = await openConsole();

    browser.offerPush(promptPush());
    browser.offerPush(promptPush());
    await screen.findByText('UVD-1 is waiting');
    expect(screen.getAllByText('UVD-1 is waiting')).toHaveLength(1);

    expect(browser.offer({ type: 'uvd:push', message: { title: 'not a push message' } })).toEqual([]);
    expect(browser.offer('hello')).toEqual([]);
    browser.offerPush(promptPush({ push_id: 'push-3', title: 'Northwind robot', realm: 'northwind' }));
    // Give the toast module the time it took for the first push before concluding nothing shows.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByText('Northwind robot')).not.toBeInTheDocument();
  });

  it('stops taking offers when the session ends, so the worker shows the system notification instead', async () => {
    const user = userEvent.setup();
    const { browser } = await openConsole();
    await user.click(screen.getByRole('button', { name: 'Log out' }));
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(browser.listening).toBe(false);
    expect(browser.offerPush(promptPush())).toEqual([]);
  });
});

describe('the session mirror the service worker answers with', () => {
  it('is written when the operator signs in and deleted when they log out', async () => {
    const user = userEvent.setup();
    const mirror = new MemorySessionMirror();
    await renderApp({ path: '/auth', network: fakeIdentity(new FakeNetwork()), sessionMirror: mirror });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await user.clear(screen.getByLabelText('Organization'));
    await user.type(screen.getByLabelText('Organization'), 'Demo');
    await user.type(screen.getByLabelText('Username'), 'olivia');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(mirror.current).not.toBeNull();
    });
    expect(mirror.current).toMatchObject({
      accessToken: window.sessionStorage.getItem('access_token'),
      realm: 'demo',
      actionBackend: testConfig().backends.action,
    });

    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(mirror.current).toBeNull();
  });
});
