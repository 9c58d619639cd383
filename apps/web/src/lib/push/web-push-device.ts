/**
 * The browser as a push device (Web Push, RFC 8030/8291/8292): the console's service worker holds a
 * PushSubscription made with the server's VAPID public key, and behaviour §7's device token is that subscription's
 * JSON. Pushes reach the service worker (src/sw.ts); those it offers to a visible console window arrive here.
 */
import { parseDeviceToken } from '@uvd/contracts';
import type { PushMessage } from '@uvd/contracts';
import { LOCAL_KEYS } from '../storage.ts';
import type { PushDevice } from './push-device.ts';
import { PushPermissionError, PushServiceError, PushTimeoutError, PushUnsupportedError } from './push-errors.ts';
import { SERVICE_WORKER_OPTIONS, SERVICE_WORKER_URL } from './register-service-worker.ts';
import { PushOffer } from './service-worker-protocol.ts';
import type { PushOfferReply } from './service-worker-protocol.ts';

/** The parts of the Push API this device uses, so tests can stand in for the browser's. */
export interface PushSubscriptionHandle {
  toJSON(): PushSubscriptionJSON;
  unsubscribe(): Promise<boolean>;
}
export interface PushManagerHandle {
  subscribe(options: PushSubscriptionOptionsInit): Promise<PushSubscriptionHandle>;
  getSubscription(): Promise<PushSubscriptionHandle | null>;
}
export interface RegistrationHandle {
  readonly pushManager: PushManagerHandle;
}
/** A message from the service worker: a MessageEvent's data and ports. */
export interface WorkerMessage {
  readonly data: unknown;
  readonly ports: readonly { postMessage(message: unknown): void }[];
}
export interface ServiceWorkerHandle {
  register(url: string, options: RegistrationOptions): Promise<unknown>;
  readonly ready: Promise<RegistrationHandle>;
  getRegistration(): Promise<RegistrationHandle | undefined>;
  addEventListener(type: 'message', listener: (event: WorkerMessage) => void): void;
  removeEventListener(type: 'message', listener: (event: WorkerMessage) => void): void;
}
export interface NotificationPermissionHandle {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
}

export interface WebPushBrowser {
  /** null where there is no service worker or no Push API. */
  serviceWorker: ServiceWorkerHandle | null;
  notifications: NotificationPermissionHandle | null;
  storage: Storage;
}

/** The real browser's, where it has them. */
export const currentBrowser = (): WebPushBrowser => ({
  serviceWorker: 'serviceWorker' in navigator && 'PushManager' in window ? navigator.serviceWorker : null,
  notifications: 'Notification' in window ? Notification : null,
  storage: window.localStorage,
});

/**
 * Activating the worker precaches the build first, and a subscription asks the browser's push service: each is
 * given this long, so the switch says within about half a minute what happened (a switch greyed out for 90 s told
 * nobody anything). The page registers its worker soon after its load, so it is usually active already.
 */
export const PUSH_STEP_TIMEOUT_MS = 15_000;

/**
 * How the Push API refuses a subscription it cannot make (W3C Push API: AbortError "push service not available",
 * NotSupportedError, InvalidStateError): the browser has no push service here. NotAllowedError is the permission.
 */
const subscribeFailure = (error: unknown): Error => {
  if (error instanceof PushTimeoutError) return error;
  if (error instanceof Error && error.name === 'NotAllowedError') return new PushPermissionError('Notification permission was refused', { cause: error });
  return new PushServiceError('The browser refused the push subscription', { cause: error });
};

const withTimeout = <T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(error());
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (reason: unknown) => {
        clearTimeout(timer);
        reject(reason instanceof Error ? reason : new Error(String(reason)));
      },
    );
  });

/** The VAPID public key (base64url, RFC 8292) as the bytes `applicationServerKey` takes. */
export const applicationServerKeyOf = (base64url: string): Uint8Array<ArrayBuffer> => {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
};

const readStored = (storage: Storage): string | null => {
  try {
    return storage.getItem(LOCAL_KEYS.deviceToken);
  } catch {
    return null;
  }
};
const writeStored = (storage: Storage, token: string | null): void => {
  try {
    if (token === null) storage.removeItem(LOCAL_KEYS.deviceToken);
    else storage.setItem(LOCAL_KEYS.deviceToken, token);
  } catch {
    // Without storage the token is not remembered: logout then cannot name it, and the server drops it once the
    // push service reports the subscription gone.
  }
};

export interface WebPushDeviceOptions {
  /** RuntimeConfig.vapidPublicKey. */
  vapidPublicKey: string;
  browser?: WebPushBrowser;
  /** PUSH_STEP_TIMEOUT_MS, shorter in tests. */
  stepTimeoutMs?: number;
}

export const createWebPushDevice = ({ vapidPublicKey, browser = currentBrowser(), stepTimeoutMs = PUSH_STEP_TIMEOUT_MS }: WebPushDeviceOptions): PushDevice => {
  const { serviceWorker, notifications, storage } = browser;
  const supported = () => serviceWorker !== null && notifications !== null && vapidPublicKey !== '';

  return {
    kind: 'webpush',
    supported,

    async register() {
      if (!serviceWorker || !notifications || !supported()) throw new PushUnsupportedError('This browser cannot receive Web Push');
      // Asked only when not yet decided: a browser answers a granted or denied permission without asking again.
      const permission = notifications.permission === 'default' ? await notifications.requestPermission() : notifications.permission;
      if (permission !== 'granted') throw new PushPermissionError(`Notification permission is ${permission}`);
      // The page registers the worker a few seconds after its load (register-service-worker.ts); the switch may be
      // faster. Registering again with the same script is a no-op.
      await serviceWorker.register(SERVICE_WORKER_URL, SERVICE_WORKER_OPTIONS).catch((error: unknown) => {
        throw new PushUnsupportedError('The service worker could not be registered', { cause: error });
      });
      const registration = await withTimeout(serviceWorker.ready, stepTimeoutMs, () => new PushTimeoutError('The service worker did not activate'));
      // Always a new subscription: behaviour §9 renews the token after 7 days, and a subscription made with another
      // VAPID key (a server whose key changed) cannot be reused.
      const subscription = await withTimeout(
        (async () => {
          const previous = await registration.pushManager.getSubscription();
          if (previous) await previous.unsubscribe();
          return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: applicationServerKeyOf(vapidPublicKey) });
        })(),
        stepTimeoutMs,
        () => new PushTimeoutError('The push service did not answer'),
      ).catch((error: unknown) => {
        throw subscribeFailure(error);
      });
      const token = JSON.stringify(subscription.toJSON());
      const parsed = parseDeviceToken(token);
      if ('error' in parsed) throw new Error(parsed.error);
      writeStored(storage, token);
      return token;
    },

    currentToken() {
      const stored = readStored(storage);
      if (stored === null) return Promise.resolve(null);
      // Earlier builds stored a random `web-<uuid>`, which is no device token to the server: forgotten.
      if ('subscription' in parseDeviceToken(stored)) return Promise.resolve(stored);
      writeStored(storage, null);
      return Promise.resolve(null);
    },

    async unregister() {
      writeStored(storage, null);
      if (!serviceWorker) return;
      const registration = await serviceWorker.getRegistration();
      const subscription = await registration?.pushManager.getSubscription();
      await subscription?.unsubscribe();
    },

    onForegroundMessage(listener: (message: PushMessage) => void) {
      if (!serviceWorker) return () => undefined;
      const onMessage = (event: WorkerMessage) => {
        const offer = PushOffer.safeParse(event.data);
        if (!offer.success) return;
        listener(offer.data.message);
        const reply: PushOfferReply = { shown: true };
        event.ports[0]?.postMessage(reply);
      };
      serviceWorker.addEventListener('message', onMessage);
      return () => {
        serviceWorker.removeEventListener('message', onMessage);
      };
    },
  };
};
