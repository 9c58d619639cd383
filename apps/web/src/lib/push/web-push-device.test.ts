import { describe, expect, it } from 'vitest';
import { FakePushBrowser } from '../../testing/fake-push-browser.ts';
import { VAPID_PUBLIC_KEY } from '../../testing/fixtures.ts';
import { LOCAL_KEYS } from '../storage.ts';
import { registrationFailureOf } from './push-errors.ts';
import { createWebPushDevice } from './web-push-device.ts';

const deviceOn = (browser: FakePushBrowser, vapidPublicKey = VAPID_PUBLIC_KEY) => createWebPushDevice({ vapidPublicKey, browser: browser.browser() });

describe('the browser as a push device', () => {
  it('forgets the random web-<uuid> token of earlier builds: it is no device token to the server', async () => {
    window.localStorage.setItem(LOCAL_KEYS.deviceToken, 'web-6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f');
    expect(await deviceOn(new FakePushBrowser()).currentToken()).toBeNull();
    expect(window.localStorage.getItem(LOCAL_KEYS.deviceToken)).toBeNull();
  });

  it('asks no permission it already has, and replaces a subscription it already holds', async () => {
    const browser = new FakePushBrowser();
    browser.permission = 'granted';
    const earlier = browser.subscribeEarlier();
    const previous = browser.current;
    const token = await deviceOn(browser).register();
    expect(browser.permissionRequests).toBe(0);
    expect(previous?.active).toBe(false);
    expect(token).not.toBe(earlier);
    expect(token).toBe(JSON.stringify(browser.current?.toJSON()));
    // Not waiting for the page's delayed registration of its worker.
    expect(browser.registered).toEqual(['/sw.js']);
  });

  it('is unsupported without a service worker, without the Push API, or without a VAPID key', async () => {
    expect(deviceOn(new FakePushBrowser({ supported: false })).supported()).toBe(false);
    const keyless = deviceOn(new FakePushBrowser(), '');
    expect(keyless.supported()).toBe(false);
    expect(registrationFailureOf(await keyless.register().catch((error: unknown) => error))).toBe('unsupported');
    expect(deviceOn(new FakePushBrowser()).supported()).toBe(true);
  });

  it('a dismissed permission prompt is a refusal too', async () => {
    const browser = new FakePushBrowser();
    browser.answer = 'default';
    const failure = await deviceOn(browser).register().catch((error: unknown) => error);
    expect(registrationFailureOf(failure)).toBe('denied');
    expect(browser.subscribeOptions).toHaveLength(0);
  });

  it('says a browser with no push service refused (a private window), and a push service that never answers timed out', async () => {
    const refusing = new FakePushBrowser();
    refusing.permission = 'granted';
    refusing.subscribeOutcome = new DOMException('Registration failed - push service not available', 'AbortError');
    expect(registrationFailureOf(await deviceOn(refusing).register().catch((error: unknown) => error))).toBe('no-push-service');

    const silent = new FakePushBrowser();
    silent.permission = 'granted';
    silent.subscribeOutcome = 'hang';
    const device = createWebPushDevice({ vapidPublicKey: VAPID_PUBLIC_KEY, browser: silent.browser(), stepTimeoutMs: 50 });
    expect(registrationFailureOf(await device.register().catch((error: unknown) => error))).toBe('timeout');
  });
});
