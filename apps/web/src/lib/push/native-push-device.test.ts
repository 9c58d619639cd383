import type { PluginListenerHandle } from '@capacitor/core';
import type { Channel, PermissionStatus } from '@capacitor/push-notifications';
import { describe, expect, it, vi } from 'vitest';
import { toFcmData } from '@uvd/contracts';
import type { PushMessage } from '@uvd/contracts';
import { createNativePushDevice, DEVICE_TOKEN_KEY } from './native-push-device.ts';
import type { NativePlatform, NativePreferences, NativePushDeviceOptions, NativePushEvent, NativePushPlugin } from './native-push-device.ts';
import { registrationFailureOf } from './push-errors.ts';

const FCM_TOKEN = 'fGx3:APA91bHk2-qwerty_ASDFG.zxcvb1234567890abcdefghijklmnop';

/**
 * Stands in for the phone's OS behind Capacitor's push-notifications plugin: the permission dialog, the push
 * service's token, and the events the native side sends across the bridge (as untyped JSON).
 */
class FakePhone implements NativePushPlugin {
  permission: PermissionStatus['receive'] = 'granted';
  /** What the push service does on register(): hand over a token, fail, or never answer. */
  onRegister: { token: string } | { error: string } | 'silent' = { token: FCM_TOKEN };
  readonly channels: Channel[] = [];
  registerCalls = 0;
  unregisterCalls = 0;
  unregisterFails = false;
  private readonly listeners = new Map<NativePushEvent, Set<(event: unknown) => void>>();

  requestPermissions() {
    return Promise.resolve({ receive: this.permission });
  }
  register() {
    this.registerCalls += 1;
    const answer = this.onRegister;
    // Android's plugin answers from a Firebase callback, possibly before register() resolves.
    if (answer !== 'silent') {
      if ('token' in answer) this.emit('registration', { value: answer.token });
      else this.emit('registrationError', { error: answer.error });
    }
    return Promise.resolve();
  }
  unregister() {
    this.unregisterCalls += 1;
    return this.unregisterFails ? Promise.reject(new Error('FIS_AUTH_ERROR')) : Promise.resolve();
  }
  createChannel(channel: Channel) {
    this.channels.push(channel);
    return Promise.resolve();
  }
  addListener(eventName: NativePushEvent, listener: (event: unknown) => void): Promise<PluginListenerHandle> {
    const set = this.listeners.get(eventName) ?? new Set();
    set.add(listener);
    this.listeners.set(eventName, set);
    return Promise.resolve({
      remove: () => {
        set.delete(listener);
        return Promise.resolve();
      },
    });
  }
  emit(eventName: NativePushEvent, event: unknown) {
    for (const listener of this.listeners.get(eventName) ?? []) listener(event);
  }
  listening(eventName: NativePushEvent) {
    return this.listeners.get(eventName)?.size ?? 0;
  }
}

class FakePreferences implements NativePreferences {
  readonly values = new Map<string, string>();
  get({ key }: { key: string }) {
    return Promise.resolve({ value: this.values.get(key) ?? null });
  }
  set({ key, value }: { key: string; value: string }) {
    this.values.set(key, value);
    return Promise.resolve();
  }
  remove({ key }: { key: string }) {
    this.values.delete(key);
    return Promise.resolve();
  }
}

const phoneOs = (name: 'android' | 'ios' | 'web'): NativePlatform => ({
  isNativePlatform: () => name !== 'web',
  isPluginAvailable: (plugin) => name !== 'web' && plugin === 'PushNotifications',
  getPlatform: () => name,
});

const promptChannel = { name: 'Kehotteet', description: 'Robotti odottaa vastaustasi' };

const setUp = (os: 'android' | 'ios' | 'web' = 'android', options: NativePushDeviceOptions = {}) => {
  const phone = new FakePhone();
  const preferences = new FakePreferences();
  const device = createNativePushDevice({ pushNotifications: phone, preferences, platform: phoneOs(os), promptChannel, ...options });
  return { phone, preferences, device };
};

const prompt: PushMessage = {
  title: 'UVD-3 odottaa huoneessa 204',
  body: 'Onko huone tyhjä?',
  icon: '/icons/icon-192.png',
  type: 'job',
  related_id: '5f0c6f0e-1b7e-4e0b-9d6c-2a7a3c1d9e01',
  kind: 'prompt',
  push_id: '0b9c2a52-4a7e-4d0a-9a43-7a3f1c1f9b11',
  url: '/job/5f0c6f0e-1b7e-4e0b-9d6c-2a7a3c1d9e01',
  realm: 'demo',
  action_id: 'c6f1d7a4-3b2e-4f5a-8c9d-0e1f2a3b4c5d',
  choices: ['confirm', 'skip'],
  choice_labels: { confirm: 'Vahvista', skip: 'Ohita' },
  sent_at: '2026-03-02T10:15:00.000+02:00',
};
const finished: PushMessage = {
  ...prompt,
  kind: 'job_finished',
  title: 'Työ valmis',
  body: 'UVD-3 valmis',
  push_id: '7d1e0c55-93a1-4c1f-8d35-5b6c7d8e9f00',
  action_id: undefined,
  choices: undefined,
  choice_labels: undefined,
};
const withoutUndefined = (message: PushMessage) => JSON.parse(JSON.stringify(message)) as unknown;

describe("native push device, with the phone's OS stood in for behind Capacitor's plugins", () => {
  it('registers: asks permission, makes the prompts channel, keeps the push token in native preferences', async () => {
    const { phone, preferences, device } = setUp('android');
    expect(device.kind).toBe('native');
    expect(device.supported()).toBe(true);

    await expect(device.register()).resolves.toBe(FCM_TOKEN);

    expect(preferences.values.get(DEVICE_TOKEN_KEY)).toBe(FCM_TOKEN);
    await expect(device.currentToken()).resolves.toBe(FCM_TOKEN);
    expect(phone.channels).toEqual([expect.objectContaining({ id: 'prompts', importance: 4, ...promptChannel })]);
    // The one-shot listeners are gone once the token is in.
    expect(phone.listening('registration')).toBe(0);
    expect(phone.listening('registrationError')).toBe(0);
  });

  it('makes no Android channel on iOS, whose Confirm and Skip buttons are a native category', async () => {
    const { phone, device } = setUp('ios');
    await expect(device.register()).resolves.toBe(FCM_TOKEN);
    expect(phone.channels).toEqual([]);
  });

  it('registers once when asked twice at the same time', async () => {
    const { phone, device } = setUp();
    const [first, second] = await Promise.all([device.register(), device.register()]);
    expect(first).toBe(FCM_TOKEN);
    expect(second).toBe(FCM_TOKEN);
    expect(phone.registerCalls).toBe(1);
  });

  it('rejects as "denied" when the user refuses notifications, and keeps no token', async () => {
    const { phone, preferences, device } = setUp();
    phone.permission = 'denied';
    const failure = await device.register().catch((error: unknown) => error);
    expect(registrationFailureOf(failure)).toBe('denied');
    expect(phone.registerCalls).toBe(0);
    expect(preferences.values.has(DEVICE_TOKEN_KEY)).toBe(false);
  });

  it("rejects with the push service's reason on registrationError", async () => {
    const { phone, preferences, device } = setUp();
    phone.onRegister = { error: 'SERVICE_NOT_AVAILABLE' };
    await expect(device.register()).rejects.toThrow('SERVICE_NOT_AVAILABLE');
    expect(preferences.values.has(DEVICE_TOKEN_KEY)).toBe(false);
    expect(phone.listening('registration')).toBe(0);
  });

  it('gives up when the push service never answers, leaving no listener behind', async () => {
    vi.useFakeTimers();
    try {
      const { phone, device } = setUp('ios', { registrationTimeoutMs: 5000 });
      phone.onRegister = 'silent';
      const registration = device.register().catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(5000);
      const failure = await registration;
      expect(failure).toBeInstanceOf(Error);
      expect(registrationFailureOf(failure)).toBe('failed');
      expect(phone.listening('registration')).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is unsupported in a browser: no registration, no token', async () => {
    const { phone, device } = setUp('web');
    expect(device.supported()).toBe(false);
    const failure = await device.register().catch((error: unknown) => error);
    expect(registrationFailureOf(failure)).toBe('unsupported');
    await expect(device.currentToken()).resolves.toBeNull();
    expect(phone.registerCalls).toBe(0);
  });

  it('unregisters from the push service and forgets the token, even when the push service cannot be told', async () => {
    const { phone, preferences, device } = setUp();
    await device.register();
    await device.unregister();
    expect(phone.unregisterCalls).toBe(1);
    await expect(device.currentToken()).resolves.toBeNull();

    await device.register();
    phone.unregisterFails = true;
    await expect(device.unregister()).rejects.toThrow('FIS_AUTH_ERROR');
    expect(preferences.values.has(DEVICE_TOKEN_KEY)).toBe(false);
  });

  it('hands pushes that arrive in the foreground to the listener as push messages, dropping what is not one', async () => {
    const { phone, device } = setUp();
    const received: PushMessage[] = [];
    const stop = device.onForegroundMessage((message) => received.push(message));
    await Promise.resolve();

    // Android passes FCM's data as is; iOS adds the APNs dictionary and FCM's own keys beside it.
    phone.emit('pushNotificationReceived', { id: '0:1', title: prompt.title, body: prompt.body, data: toFcmData(prompt) });
    phone.emit('pushNotificationReceived', {
      id: 'ios-1',
      data: { ...toFcmData(finished), aps: { alert: { title: finished.title } }, 'gcm.message_id': '1700000000' },
    });
    phone.emit('pushNotificationReceived', { id: 'other-app', data: { title: 'Sale!', body: '50 % off' } });
    phone.emit('pushNotificationReceived', { id: 'broken', data: { ...toFcmData(prompt), choice_labels: '{not json' } });
    phone.emit('pushNotificationReceived', 'not an object');

    expect(received.map(withoutUndefined)).toEqual([withoutUndefined(prompt), withoutUndefined(finished)]);

    stop();
    phone.emit('pushNotificationReceived', { id: '0:2', data: toFcmData(prompt) });
    expect(received).toHaveLength(2);
  });

  it("answers a prompt from the notification's Confirm and Skip buttons, and opens the console on a tap", async () => {
    const onPromptAnswer = vi.fn();
    const onNotificationOpened = vi.fn();
    const { phone } = setUp('ios', { onPromptAnswer, onNotificationOpened });
    await Promise.resolve();
    const tapped = (actionId: string, message: PushMessage) => {
      phone.emit('pushNotificationActionPerformed', { actionId, notification: { id: 'n', data: toFcmData(message) } });
    };

    tapped('confirm', prompt);
    tapped('skip', prompt);
    expect(onPromptAnswer.mock.calls).toEqual([
      [{ action_id: prompt.action_id, confirm: true, source: 'notification' }, expect.objectContaining({ push_id: prompt.push_id })],
      [{ action_id: prompt.action_id, confirm: false, source: 'notification' }, expect.objectContaining({ push_id: prompt.push_id })],
    ]);

    tapped('tap', finished);
    expect(onNotificationOpened).toHaveBeenCalledWith(expect.objectContaining({ push_id: finished.push_id, url: finished.url }));

    // A button on a push that asks nothing, a dismissal, and what is not a push of ours answer nothing.
    tapped('confirm', finished);
    tapped('dismiss', prompt);
    phone.emit('pushNotificationActionPerformed', { actionId: 'confirm', notification: { data: { action_id: prompt.action_id } } });
    expect(onPromptAnswer).toHaveBeenCalledTimes(2);
    expect(onNotificationOpened).toHaveBeenCalledTimes(1);
  });
});
