import { getMyProfile, listLanguages, listTimezones, saveSettings, subscribe, unsubscribe } from '@uvd/contracts';
import type { TimezoneOption } from '@uvd/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { fakeIdentity, sessionUser, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { DEVICE_TOKEN_KEY, NOTIFICATIONS_KEY } from './notifications.ts';

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

const openSettings = async (network: FakeNetwork) => {
  const view = await renderApp({ path: '/settings', network });
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
  await screen.findByRole('combobox', { name: 'Language' });
  return view;
};

describe('settings (spec §2)', () => {
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

describe('notifications switch (spec §3, §4)', () => {
  it('on subscribes this device to the user and realm topics, off unsubscribes both, and the per-user flag persists', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(subscribe, { status: 200, body: { data: true } }).on(unsubscribe, { status: 200, body: { data: true } });
    const { unmount } = await openSettings(network);
    const toggle = screen.getByRole('switch', { name: 'Push notifications on this device' });
    expect(toggle).not.toBeChecked();

    await user.click(toggle);
    await waitFor(() => {
      expect(toggle).toBeChecked();
    });
    const token = window.localStorage.getItem(DEVICE_TOKEN_KEY);
    expect(token).toBeTruthy();
    expect(network.callsTo(subscribe).map(bodyOf)).toEqual([
      { token, topic: USER_ID },
      { token, topic: 'demo' },
    ]);
    expect(JSON.parse(window.localStorage.getItem(NOTIFICATIONS_KEY) ?? '{}')).toEqual({ [USER_ID]: true });
    expect(await screen.findByText('Notifications on')).toBeInTheDocument();

    // The flag is read back on the next visit.
    unmount();
    storeSession();
    await openSettings(network);
    const again = screen.getByRole('switch', { name: 'Push notifications on this device' });
    expect(again).toBeChecked();

    await user.click(again);
    await waitFor(() => {
      expect(again).not.toBeChecked();
    });
    expect(network.callsTo(unsubscribe).map(bodyOf)).toEqual([
      { token, topic: USER_ID },
      { token, topic: 'demo' },
    ]);
    expect(JSON.parse(window.localStorage.getItem(NOTIFICATIONS_KEY) ?? '{}')).toEqual({ [USER_ID]: false });
    expect(window.localStorage.getItem(DEVICE_TOKEN_KEY)).toBe(token);
  });

  it('keeps the switch and the flag as they were when subscribing fails (falsy data is a failure)', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(subscribe, { status: 200, body: { data: false } });
    await openSettings(network);
    const toggle = screen.getByRole('switch', { name: 'Push notifications on this device' });
    await user.click(toggle);
    expect(await screen.findByText('Notifications could not be changed')).toBeInTheDocument();
    expect(toggle).not.toBeChecked();
    expect(window.localStorage.getItem(NOTIFICATIONS_KEY)).toBeNull();
  });
});
