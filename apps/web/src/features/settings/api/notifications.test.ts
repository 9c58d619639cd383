import { removeDevice, subscribe } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api-client.ts';
import { createWebPushDevice } from '../../../lib/push/web-push-device.ts';
import { LOCAL_KEYS } from '../../../lib/storage.ts';
import { FakeNetwork } from '../../../testing/fake-network.ts';
import { FakePushBrowser } from '../../../testing/fake-push-browser.ts';
import { VAPID_PUBLIC_KEY, testConfig } from '../../../testing/fixtures.ts';
import { PUSH_TOKEN_MAX_AGE_MS, readNotificationsEnabled, readRegisteredAt, saveNotificationsEnabled, saveRegisteredAt } from '../notifications.ts';
import { renewRegistration } from './notifications.ts';

const USER = { sub: '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f', realm: 'demo' };
const NOW = Date.parse('2026-11-20T10:00:00Z');

const setup = (permission: NotificationPermission = 'granted') => {
  const network = new FakeNetwork()
    .on(subscribe, { status: 200, body: { data: true } })
    .on(removeDevice, { status: 200, body: { data: true } });
  const api = createApiClient(testConfig(), { fetch: network.fetch, getAccessToken: () => 'access' });
  const browser = new FakePushBrowser();
  browser.permission = permission;
  const device = createWebPushDevice({ vapidPublicKey: VAPID_PUBLIC_KEY, browser: browser.browser() });
  return { network, api, browser, device };
};

/** A registration of this browser made `age` ms before NOW, with notifications on for the user. */
const registeredBefore = (browser: FakePushBrowser, age: number): string => {
  const token = browser.subscribeEarlier();
  window.localStorage.setItem(LOCAL_KEYS.deviceToken, token);
  saveRegisteredAt(NOW - age);
  saveNotificationsEnabled(USER.sub, true);
  return token;
};

describe('renewRegistration at the start of a session (behaviour §9: push token refresh after 7 days)', () => {
  it('keeps a registration younger than 7 days, with no call', async () => {
    const { network, api, browser, device } = setup();
    const token = registeredBefore(browser, PUSH_TOKEN_MAX_AGE_MS - 60_000);
    expect(await renewRegistration(api, device, USER, NOW)).toBe('current');
    expect(network.requests).toHaveLength(0);
    expect(await device.currentToken()).toBe(token);
    expect(browser.subscribeOptions).toHaveLength(0);
  });

  it('renews one of exactly 7 days: new subscription subscribed on both topics, the old token removed', async () => {
    const { network, api, browser, device } = setup();
    const old = registeredBefore(browser, PUSH_TOKEN_MAX_AGE_MS);
    expect(await renewRegistration(api, device, USER, NOW)).toBe('renewed');
    const token = await device.currentToken();
    expect(token).not.toBe(old);
    expect(network.callsTo(subscribe).map((request) => JSON.parse(request.body) as unknown)).toEqual([
      { token, topic: USER.sub },
      { token, topic: 'demo' },
    ]);
    expect(network.callsTo(removeDevice).map((request) => JSON.parse(request.body) as unknown)).toEqual([{ deviceToken: old, userId: USER.sub }]);
    expect(readRegisteredAt()).toBe(NOW);
  });

  it('registers again when notifications are on but logout ended the registration, with nothing to remove', async () => {
    const { network, api, device } = setup();
    saveNotificationsEnabled(USER.sub, true);
    saveRegisteredAt(NOW - 60_000);
    expect(await renewRegistration(api, device, USER, NOW)).toBe('renewed');
    expect(network.callsTo(subscribe)).toHaveLength(2);
    expect(network.callsTo(removeDevice)).toHaveLength(0);
  });

  it('does nothing while notifications are off for the user', async () => {
    const { network, api, browser, device } = setup();
    registeredBefore(browser, PUSH_TOKEN_MAX_AGE_MS * 2);
    saveNotificationsEnabled(USER.sub, false);
    expect(await renewRegistration(api, device, USER, NOW)).toBe('off');
    expect(network.requests).toHaveLength(0);
  });

  it('switches notifications off when the permission was withdrawn since', async () => {
    const { network, api, browser, device } = setup('denied');
    registeredBefore(browser, PUSH_TOKEN_MAX_AGE_MS * 2);
    expect(await renewRegistration(api, device, USER, NOW)).toBe('refused');
    expect(readNotificationsEnabled(USER.sub)).toBe(false);
    expect(network.requests).toHaveLength(0);
  });
});
