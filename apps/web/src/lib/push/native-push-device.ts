/**
 * The mobile shell (apps/mobile, Capacitor) as a push device: the phone's push service (FCM on Android, APNs
 * through FCM on iOS) hands the app a registration token, which is behaviour §7's device token, kept in native
 * preferences under `device_token` (behaviour §3). A push's `data` is the push message as FCM's strings (`toFcmData`).
 */
import { Capacitor } from '@capacitor/core';
import type { PluginListenerHandle } from '@capacitor/core';
import { Preferences } from '@capacitor/preferences';
import { PushNotifications } from '@capacitor/push-notifications';
import type { Channel, PermissionStatus } from '@capacitor/push-notifications';
import { fromFcmData, PushChoice } from '@uvd/contracts';
import type { ActionDecision, PushMessage } from '@uvd/contracts';
import { z } from 'zod';
import type { PushDevice } from './push-device.ts';

/** Behaviour §3: the device token lives in native preferences. */
export const DEVICE_TOKEN_KEY = 'device_token';
/** The Android channel of prompt pushes; the server's FCM sender names it (`android.notification.channel_id`). */
export const PROMPT_CHANNEL_ID = 'prompts';
/** Android's NotificationManager.IMPORTANCE_HIGH: sound and a heads-up banner, for a robot waiting on someone. */
const IMPORTANCE_HIGH = 4;
/** A phone without Google Play services, or an iOS build without the AppDelegate's token hand-over, never answers. */
const REGISTRATION_TIMEOUT_MS = 20_000;

/** The plugin methods this device uses (@capacitor/push-notifications), so tests can stand in for the phone. */
export interface NativePushPlugin {
  requestPermissions(): Promise<PermissionStatus>;
  register(): Promise<void>;
  unregister(): Promise<void>;
  createChannel(channel: Channel): Promise<void>;
  addListener(eventName: NativePushEvent, listener: (event: unknown) => void): Promise<PluginListenerHandle>;
}
export type NativePushEvent = 'registration' | 'registrationError' | 'pushNotificationReceived' | 'pushNotificationActionPerformed';

/** The preference methods this device uses (@capacitor/preferences). */
export interface NativePreferences {
  get(options: { key: string }): Promise<{ value: string | null }>;
  set(options: { key: string; value: string }): Promise<void>;
  remove(options: { key: string }): Promise<void>;
}

export interface NativePlatform {
  isNativePlatform(): boolean;
  isPluginAvailable(name: string): boolean;
  getPlatform(): string;
}

export interface NativePushDeviceOptions {
  pushNotifications?: NativePushPlugin;
  preferences?: NativePreferences;
  platform?: NativePlatform;
  /**
   * The name and description Android's settings show for the prompts channel, in the user's language. Without
   * them no channel is made and Android shows prompts in FCM's fallback channel, without a heads-up banner.
   */
  promptChannel?: { name: string; description: string };
  /**
   * A prompt push's Confirm or Skip button was pressed (iOS, category PROMPT). The decision is what
   * POST /action/action/confirm takes; the message says which organization's session may send it.
   */
  onPromptAnswer?: (decision: ActionDecision, message: PushMessage) => void;
  /** The notification itself was tapped: the console opens `message.url`. */
  onNotificationOpened?: (message: PushMessage) => void;
  registrationTimeoutMs?: number;
}

/** Matched by name with lib/push/push-errors.ts: 'PushPermissionError' (denied) and 'PushUnsupportedError'. */
class PushPermissionError extends Error {
  override readonly name = 'PushPermissionError';
}
class PushUnsupportedError extends Error {
  override readonly name = 'PushUnsupportedError';
}
export class NativePushRegistrationError extends Error {
  override readonly name = 'NativePushRegistrationError';
}

// What the native side hands over crosses the bridge as JSON: parsed, never trusted.
const Registration = z.object({ value: z.string().min(1) });
const RegistrationFailure = z.object({ error: z.string() });
const ReceivedPush = z.object({ data: z.record(z.string(), z.unknown()) });
const PerformedAction = z.object({ actionId: z.string(), notification: ReceivedPush });

const capacitorPush = (): NativePushPlugin => ({
  requestPermissions: () => PushNotifications.requestPermissions(),
  register: () => PushNotifications.register(),
  unregister: () => PushNotifications.unregister(),
  createChannel: (channel) => PushNotifications.createChannel(channel),
  // Capacitor types each event's payload; this device parses them all as unknown instead.
  addListener: (eventName, listener) => {
    switch (eventName) {
      case 'registration':
        return PushNotifications.addListener(eventName, listener);
      case 'registrationError':
        return PushNotifications.addListener(eventName, listener);
      case 'pushNotificationReceived':
        return PushNotifications.addListener(eventName, listener);
      case 'pushNotificationActionPerformed':
        return PushNotifications.addListener(eventName, listener);
    }
  },
});

const messageOf = (push: unknown): PushMessage | undefined => {
  const parsed = ReceivedPush.safeParse(push);
  return parsed.success ? fromFcmData(parsed.data.data) : undefined;
};

export const createNativePushDevice = (options: NativePushDeviceOptions = {}): PushDevice => {
  const push = options.pushNotifications ?? capacitorPush();
  const preferences = options.preferences ?? Preferences;
  const platform = options.platform ?? Capacitor;
  const timeoutMs = options.registrationTimeoutMs ?? REGISTRATION_TIMEOUT_MS;
  const supported = () => platform.isNativePlatform() && platform.isPluginAvailable('PushNotifications');
  let registering: Promise<string> | undefined;

  const { onPromptAnswer, onNotificationOpened } = options;
  if (supported() && (onPromptAnswer || onNotificationOpened)) {
    // Capacitor keeps an action that launched the app until a listener takes it, so one registered at start-up
    // still hears the button that woke a closed app.
    void push.addListener('pushNotificationActionPerformed', (event) => {
      const action = PerformedAction.safeParse(event);
      if (!action.success) return;
      const message = messageOf(action.data.notification);
      if (!message) return;
      const choice = PushChoice.safeParse(action.data.actionId);
      if (choice.success) {
        if (message.action_id && message.choices?.includes(choice.data)) {
          onPromptAnswer?.({ action_id: message.action_id, confirm: choice.data === 'confirm', source: 'notification' }, message);
        }
      } else if (action.data.actionId === 'tap') {
        onNotificationOpened?.(message);
      }
    });
  }

  const obtainToken = async (): Promise<string> => {
    const permission = await push.requestPermissions();
    if (permission.receive !== 'granted') throw new PushPermissionError(`Notification permission is ${permission.receive}`);
    if (platform.getPlatform() === 'android' && options.promptChannel) {
      // Creating an existing channel only renames it (the user's own sound and importance settings stay).
      await push.createChannel({ id: PROMPT_CHANNEL_ID, importance: IMPORTANCE_HIGH, vibration: true, ...options.promptChannel });
    }
    const token = await new Promise<string>((resolve, reject) => {
      let settled = false;
      let handles: PluginListenerHandle[] = [];
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        for (const handle of handles) void handle.remove();
        outcome();
      };
      const timer = setTimeout(() => {
        settle(() => {
          reject(new NativePushRegistrationError(`The phone's push service gave no token within ${timeoutMs} ms`));
        });
      }, timeoutMs);
      // Both listeners are in place before register(): Android may answer before register() itself resolves.
      Promise.all([
        push.addListener('registration', (event) => {
          const registration = Registration.safeParse(event);
          settle(() => {
            if (registration.success) resolve(registration.data.value);
            else reject(new NativePushRegistrationError('The push service answered without a token'));
          });
        }),
        push.addListener('registrationError', (event) => {
          const failure = RegistrationFailure.safeParse(event);
          settle(() => {
            reject(new NativePushRegistrationError(failure.success ? failure.data.error : 'Push registration failed'));
          });
        }),
      ])
        .then(async (added) => {
          if (settled) {
            await Promise.all(added.map((handle) => handle.remove()));
            return;
          }
          handles = added;
          await push.register();
        })
        .catch((error: unknown) => {
          settle(() => {
            reject(error instanceof Error ? error : new NativePushRegistrationError(String(error)));
          });
        });
    });
    await preferences.set({ key: DEVICE_TOKEN_KEY, value: token });
    return token;
  };

  return {
    kind: 'native',
    supported,

    register() {
      if (!supported()) return Promise.reject(new PushUnsupportedError('Native push is not available here'));
      // The settings switch and the 7-day renewal may ask at once; the phone registers once for both.
      registering ??= obtainToken().finally(() => {
        registering = undefined;
      });
      return registering;
    },

    async currentToken() {
      if (!supported()) return null;
      return (await preferences.get({ key: DEVICE_TOKEN_KEY })).value;
    },

    async unregister() {
      if (!supported()) return;
      try {
        await push.unregister();
      } finally {
        // Forgotten even if the push service could not be told: the server drops the token on FCM's UNREGISTERED.
        await preferences.remove({ key: DEVICE_TOKEN_KEY });
      }
    },

    onForegroundMessage(listener) {
      if (!supported()) return () => undefined;
      let listening = true;
      const handle = push.addListener('pushNotificationReceived', (event) => {
        const message = messageOf(event);
        if (listening && message) listener(message);
      });
      return () => {
        listening = false;
        void handle.then((added) => added.remove());
      };
    },
  };
};
