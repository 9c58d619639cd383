import { getMyProfile, listLanguages, listTimezones, parseDeviceToken, removeDevice, saveSettings, subscribe, unsubscribe } from '@uvd/contracts';
import type { TimezoneOption } from '@uvd/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { createWebPushDevice } from '../../lib/push/web-push-device.ts';
import { LOCAL_KEYS } from '../../lib/storage.ts';
import { FakePushBrowser } from '../../testing/fake-push-browser.ts';
import { FakeNetwork } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { VAPID_PUBLIC_KEY, fakeIdentity, sessionUser, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { NOTIFICATIONS_KEY, PUSH_TOKEN_MAX_AGE_MS, REGISTERED_AT_KEY } from './notifications.ts';

const USER_ID = sessionUser().sub;

/** 400+ zones as the server lists them, the real ones first. */
const TIMEZONES: TimezoneOption[] = [
  ['Europe/Helsinki', '+02:00'],
  ['Europe/Stockholm', '+01:00'],
  ['America/New_York', '-05:00'],
  ...Array.from({ length: 420 }, (_, index): TimezoneOption => [`Etc/Zone${String(index)}`, '+00:00']),
];

const signedIn = () => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(listLanguages, { status: 200, body: [['English', 'en'], ['Suomi', 'fi'], ['Svenska', 'se']] })
    .on(listTimezones, { status: 200, body: TIMEZONES });
};

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body ?? 'null');

const openSettings = async (network: FakeNetwork, push?: FakePushBrowser) => {
  const pushDevice = push && createWebPushDevice({ vapidPublicKey: VAPID_PUBLIC_KEY, browser: push.browser() });
  const view = await renderApp({ path: '/settings', network, pushDevice });
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
  await screen.findByRole('combobox', { name: 'Language' });
  return view;
};

describe('settings (behaviour §2)', () => {
  it('loads the languages and the timezones, showing the saved ones', async () => {
    const network = signedIn();
    await openSettings(network);

    const language = screen.getByRole('combobox', { name: 'Language' });
    expect(language).toHaveValue('en');
    expect([...screen.getAllByRole('option', { name: /English|Suomi|Svenska/ })].map((option) => option.textContent)).toEqual(['English', 'Suomi', 'Svenska']);
    const timezone = screen.getByLabelText('Timezone');
    expect(timezone).toHaveValue('Europe/Helsinki');
    const list = document.getElementById(timezone.getAttribute('list') ?? '');
    expect(list?.querySelectorAll('option')).toHaveLength(TIMEZONES.length);
    expect(list?.querySelector('option[value="America/New_York"]')).toHaveTextContent('America/New_York (UTC-05:00)');
    expect(network.callsTo(listLanguages)).toHaveLength(1);
    expect(network.callsTo(listTimezones)).toHaveLength(1);
  });

  it('shows skeletons while the lists load, and an error when they fail', async () => {
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(listLanguages, { hang: true }).on(listTimezones, { status: 200, body: TIMEZONES });
    const { unmount } = await renderApp({ path: '/settings', network });
    await screen.findByRole('heading', { level: 1, name: 'Settings' });
    expect(screen.getByTestId('skeleton')).toBeInTheDocument();
    unmount();

    storeSession();
    network.on(listLanguages, { status: 500, body: { error: 'internal', message: 'boom' } });
    await renderApp({ path: '/settings', network });
    expect(await screen.findByText('Failed to load the languages and timezones.')).toBeInTheDocument();
  });

  it('saves {language, timezone}, switches the language and re-reads the profile', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(saveSettings, { status: 200, body: { data: { language: 'FI', timezone: 'America/New_York' } } });
    const { i18n } = await openSettings(network);
    // The profile read after the save answers the saved settings.
    network.on(getMyProfile, { status: 200, body: sessionUser(['done-teleoperator'], { language: 'FI', timezone: 'America/New_York' }) });
    const profileReadsBefore = network.callsTo(getMyProfile).length;

    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'fi');
    const timezone = screen.getByLabelText('Timezone');
    await user.clear(timezone);
    await user.type(timezone, 'america/new_york');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => {
      expect(network.callsTo(saveSettings)).toHaveLength(1);
    });
    expect(bodyOf(network.callsTo(saveSettings)[0])).toEqual({ language: 'FI', timezone: 'America/New_York' });
    await waitFor(() => { expect(i18n.language).toBe('fi'); });
    expect(await screen.findByText('Asetukset tallennettu')).toBeInTheDocument();
    expect(i18n.language).toBe('fi');
    expect(screen.getByRole('heading', { level: 1, name: 'Asetukset' })).toBeInTheDocument();
    await waitFor(() => {
      expect(network.callsTo(getMyProfile).length).toBeGreaterThan(profileReadsBefore);
    });
  });

  it('refuses a timezone that is not in the list and sends nothing', async () => {
    const user = userEvent.setup();
    const network = signedIn();
    await openSettings(network);
    const timezone = screen.getByLabelText('Timezone');
    await user.clear(timezone);
    await user.type(timezone, 'Mars/Olympus');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(timezone).toHaveAttribute('aria-invalid', 'true');
    expect(timezone).toHaveAccessibleDescription(/Choose a timezone from the list\./);
    expect(timezone).toHaveFocus();
    expect(network.callsTo(saveSettings)).toHaveLength(0);
  });

  it('toasts a failed save and keeps the language', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(saveSettings, { status: 500, body: { error: 'internal', message: 'boom' } });
    const { i18n } = await openSettings(network);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'se');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Settings could not be saved')).toBeInTheDocument();
    expect(i18n.language).toBe('en');
  });
});

describe('the language tells the truth (issue #25 item 1)', () => {
  it('in Finnish the select shows Suomi, and saving only the timezone keeps Finnish', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(saveSettings, (request) => ({ status: 200, body: { data: JSON.parse(request.body) as unknown } }));
    const { i18n } = await renderApp({ path: '/settings', network, language: 'fi' });
    const language = await screen.findByRole('combobox', { name: 'Kieli' });
    expect(language).toHaveValue('fi');
    const timezone = screen.getByLabelText('Aikavyöhyke');
    await user.clear(timezone);
    await user.type(timezone, 'Europe/Stockholm');
    await user.click(screen.getByRole('button', { name: 'Tallenna' }));
    await waitFor(() => {
      expect(network.callsTo(saveSettings)).toHaveLength(1);
    });
    expect(bodyOf(network.callsTo(saveSettings)[0])).toEqual({ language: 'FI', timezone: 'Europe/Stockholm' });
    expect(await screen.findByText('Asetukset tallennettu')).toBeInTheDocument();
    expect(i18n.language).toBe('fi');
  });

  it("applies the profile's language when the console loads on another device", async () => {
    const network = signedIn().on(getMyProfile, { status: 200, body: sessionUser(['done-teleoperator'], { language: 'SE' }) });
    const { i18n } = await renderApp({ path: '/settings', network, language: 'en', followProfile: true });
    expect(await screen.findByRole('heading', { level: 1, name: 'Inställningar' })).toBeInTheDocument();
    expect(i18n.language).toBe('se');
    expect(await screen.findByRole('combobox', { name: 'Språk' })).toHaveValue('se');
  });
});

describe('notifications switch (behaviour §3, §4, §9)', () => {
  const SWITCH = 'Push notifications on this device';
  const withSubscriptions = () =>
    signedIn()
      .on(subscribe, { status: 200, body: { data: true } })
      .on(unsubscribe, { status: 200, body: { data: true } })
      .on(removeDevice, { status: 200, body: { data: true } });
  const storedToken = () => window.localStorage.getItem(LOCAL_KEYS.deviceToken);

  it('on asks permission, subscribes with the VAPID key and sends the subscription JSON to the user and realm topics; off unsubscribes both and ends the subscription', async () => {
    const user = userEvent.setup();
    const network = withSubscriptions();
    const browser = new FakePushBrowser();
    const before = Date.now();
    const { unmount } = await openSettings(network, browser);
    const toggle = screen.getByRole('switch', { name: SWITCH });
    expect(toggle).not.toBeChecked();

    await user.click(toggle);
    await waitFor(() => {
      expect(toggle).toBeChecked();
    });
    expect(browser.permissionRequests).toBe(1);
    const [options] = browser.subscribeOptions;
    expect(options?.userVisibleOnly).toBe(true);
    const key = options?.applicationServerKey;
    if (!(key instanceof Uint8Array)) throw new Error('applicationServerKey is not the key bytes');
    expect(Buffer.from(key).toString('base64url')).toBe(VAPID_PUBLIC_KEY);
    const subscription = browser.current;
    if (!subscription) throw new Error('no subscription was made');
    const token = JSON.stringify(subscription.toJSON());
    // The server's own check of a device token: the JSON of a Web Push subscription.
    expect(parseDeviceToken(token)).toEqual({ kind: 'webpush', subscription: subscription.toJSON() });
    expect(network.callsTo(subscribe).map(bodyOf)).toEqual([
      { token, topic: USER_ID },
      { token, topic: 'demo' },
    ]);
    expect(storedToken()).toBe(token);
    expect(JSON.parse(window.localStorage.getItem(NOTIFICATIONS_KEY) ?? '{}')).toEqual({ [USER_ID]: true });
    expect(Number(window.localStorage.getItem(REGISTERED_AT_KEY))).toBeGreaterThanOrEqual(before);
    expect(await screen.findByText('Notifications on')).toBeInTheDocument();

    // The flag is read back on the next visit.
    unmount();
    storeSession();
    await openSettings(network, browser);
    const again = screen.getByRole('switch', { name: SWITCH });
    expect(again).toBeChecked();

    await user.click(again);
    await waitFor(() => {
      expect(again).not.toBeChecked();
    });
    expect(network.callsTo(unsubscribe).map(bodyOf)).toEqual([
      { token, topic: USER_ID },
      { token, topic: 'demo' },
    ]);
    expect(subscription.active).toBe(false);
    expect(storedToken()).toBeNull();
    expect(JSON.parse(window.localStorage.getItem(NOTIFICATIONS_KEY) ?? '{}')).toEqual({ [USER_ID]: false });
  });

  it('says why and stays off when the permission is refused, and does not ask again once it is denied', async () => {
    const user = userEvent.setup();
    const network = withSubscriptions();
    const browser = new FakePushBrowser();
    browser.answer = 'denied';
    await openSettings(network, browser);
    const toggle = screen.getByRole('switch', { name: SWITCH });

    await user.click(toggle);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("Notifications are blocked for this site. Allow them in your browser's site settings, then turn them on again.");
    expect(toggle).toHaveAccessibleDescription(/Notifications are blocked for this site/);
    expect(toggle).not.toBeChecked();
    expect(browser.permissionRequests).toBe(1);

    await user.click(toggle);
    await waitFor(() => {
      expect(toggle).toBeEnabled();
    });
    expect(toggle).not.toBeChecked();
    expect(browser.permissionRequests).toBe(1);
    expect(browser.subscribeOptions).toHaveLength(0);
    expect(network.callsTo(subscribe)).toHaveLength(0);
    expect(window.localStorage.getItem(NOTIFICATIONS_KEY)).toBeNull();
  });

  it('says so in Finnish when this browser has no Web Push', async () => {
    const user = userEvent.setup();
    const network = withSubscriptions();
    await renderApp({
      path: '/settings',
      network,
      language: 'fi',
      pushDevice: createWebPushDevice({ vapidPublicKey: VAPID_PUBLIC_KEY, browser: new FakePushBrowser({ supported: false }).browser() }),
    });
    const toggle = await screen.findByRole('switch', { name: 'Push-ilmoitukset tällä laitteella' });
    await user.click(toggle);
    expect(await screen.findByRole('alert')).toHaveTextContent('Tämä selain ei voi vastaanottaa push-ilmoituksia.');
    expect(toggle).not.toBeChecked();
    expect(network.callsTo(subscribe)).toHaveLength(0);
  });

  it('with permission granted, shows it is working, and says when the browser has no push service (a private window) and what to do', async () => {
    const user = userEvent.setup();
    const network = withSubscriptions();
    const browser = new FakePushBrowser();
    browser.permission = 'granted';
    let refuse: (error: Error) => void = () => undefined;
    browser.subscribeOutcome = new Promise<never>((_resolve, reject) => {
      refuse = reject;
    });
    await openSettings(network, browser);
    const toggle = await screen.findByRole('switch', { name: SWITCH });
    expect(toggle).toHaveAccessibleDescription(/robots' questions/);

    await user.click(toggle);
    expect(await screen.findByTestId('notifications-busy')).toHaveTextContent('Working…');
    expect(toggle).toBeDisabled();
    refuse(new DOMException('Registration failed - push service not available', 'AbortError'));
    expect(await screen.findByRole('alert')).toHaveTextContent(/^This browser refuses push notifications here: private windows and some browsers have no push service\./);
    expect(screen.queryByTestId('notifications-busy')).not.toBeInTheDocument();
    expect(toggle).toBeEnabled();
    expect(toggle).not.toBeChecked();
    expect(network.callsTo(subscribe)).toHaveLength(0);
  });

  it('keeps the switch and the flag as they were when subscribing fails (falsy data is a failure)', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(subscribe, { status: 200, body: { data: false } });
    await openSettings(network, new FakePushBrowser());
    const toggle = screen.getByRole('switch', { name: SWITCH });
    await user.click(toggle);
    expect(await screen.findByRole('alert')).toHaveTextContent('Notifications could not be changed. Try again; if it keeps failing, reload the page.');
    expect(toggle).not.toBeChecked();
    expect(window.localStorage.getItem(NOTIFICATIONS_KEY)).toBeNull();
  });

  it('renews a registration older than 7 days when the console starts: a new subscription on both topics, the old token removed', async () => {
    const network = withSubscriptions();
    const browser = new FakePushBrowser();
    browser.permission = 'granted';
    const oldToken = browser.subscribeEarlier();
    const oldSubscription = browser.current;
    window.localStorage.setItem(LOCAL_KEYS.deviceToken, oldToken);
    window.localStorage.setItem(NOTIFICATIONS_KEY, JSON.stringify({ [USER_ID]: true }));
    const weekAgo = Date.now() - PUSH_TOKEN_MAX_AGE_MS - 60_000;
    window.localStorage.setItem(REGISTERED_AT_KEY, String(weekAgo));

    await openSettings(network, browser);

    await waitFor(() => {
      expect(network.callsTo(removeDevice)).toHaveLength(1);
    });
    const newToken = storedToken();
    expect(newToken).not.toBe(oldToken);
    expect(newToken).toBe(JSON.stringify(browser.current?.toJSON()));
    expect(network.callsTo(subscribe).map(bodyOf)).toEqual([
      { token: newToken, topic: USER_ID },
      { token: newToken, topic: 'demo' },
    ]);
    expect(bodyOf(network.callsTo(removeDevice)[0])).toEqual({ deviceToken: oldToken, userId: USER_ID });
    // The new token is subscribed before the old one goes, so no push falls between.
    const order = network.requests.map((request) => request.url.pathname.split('/').pop());
    expect(order.lastIndexOf('subscribe')).toBeLessThan(order.indexOf('remove'));
    expect(oldSubscription?.active).toBe(false);
    expect(browser.permissionRequests).toBe(0);
    expect(Number(window.localStorage.getItem(REGISTERED_AT_KEY))).toBeGreaterThan(weekAgo);
    expect(screen.getByRole('switch', { name: SWITCH })).toBeChecked();
  });

  it('logout removes this device with its current subscription (DELETE /remove) and ends the subscription', async () => {
    const user = userEvent.setup();
    const network = withSubscriptions();
    const browser = new FakePushBrowser();
    await openSettings(network, browser);
    await user.click(screen.getByRole('switch', { name: SWITCH }));
    await screen.findByText('Notifications on');
    const token = storedToken();
    const subscription = browser.current;

    await user.click(screen.getByRole('button', { name: 'Log out' }));

    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(network.callsTo(removeDevice).map(bodyOf)).toEqual([{ deviceToken: token, userId: USER_ID }]);
    expect(subscription?.active).toBe(false);
    expect(storedToken()).toBeNull();
  });
});
