import type { PushMessage } from '@uvd/contracts';
import type { PushOffer } from '../lib/push/service-worker-protocol.ts';
import type { NotificationPermissionHandle, PushSubscriptionHandle, WebPushBrowser, WorkerMessage } from '../lib/push/web-push-device.ts';

let made = 0;
const base64url = (bytes: number, fill: number): string => Buffer.from(new Uint8Array(bytes).fill(fill)).toString('base64url');

/** A subscription as a push service hands one out: its own endpoint and keys (valid sizes, RFC 8291). */
export class FakeSubscription implements PushSubscriptionHandle {
  readonly endpoint: string;
  active = true;
  private readonly keys: { p256dh: string; auth: string };

  constructor() {
    made += 1;
    this.endpoint = `https://push.example.test/send/subscription-${String(made)}`;
    this.keys = { p256dh: base64url(65, made % 256), auth: base64url(16, made % 256) };
  }

  toJSON(): PushSubscriptionJSON {
    return { endpoint: this.endpoint, expirationTime: null, keys: { ...this.keys } };
  }

  unsubscribe(): Promise<boolean> {
    this.active = false;
    return Promise.resolve(true);
  }
}

/**
 * The browser's side of Web Push for jsdom, which has none: the permission prompt (answered as `answer` says), the
 * service worker's PushManager, and the worker's messages to the page.
 */
export class FakePushBrowser implements NotificationPermissionHandle {
  permission: NotificationPermission = 'default';
  /** What the person answers when the browser asks. */
  answer: NotificationPermission = 'granted';
  permissionRequests = 0;
  /** How the push service answers a subscription: with one (null), a refusal, never ('hang'), or when told. */
  subscribeOutcome: Error | 'hang' | Promise<never> | null = null;
  readonly subscribeOptions: PushSubscriptionOptionsInit[] = [];
  current: FakeSubscription | null = null;
  /** Scripts the page registered as its service worker. */
  readonly registered: string[] = [];
  private readonly listeners = new Set<(event: WorkerMessage) => void>();

  constructor(private readonly options: { supported?: boolean } = {}) {}

  browser(): WebPushBrowser {
    const pushManager = {
      subscribe: (options: PushSubscriptionOptionsInit) => {
        this.subscribeOptions.push(options);
        if (this.subscribeOutcome === 'hang') return new Promise<FakeSubscription>(() => undefined);
        if (this.subscribeOutcome instanceof Promise) return this.subscribeOutcome;
        if (this.subscribeOutcome) return Promise.reject(this.subscribeOutcome);
        this.current = new FakeSubscription();
        return Promise.resolve(this.current);
      },
      getSubscription: () => Promise.resolve(this.current?.active ? this.current : null),
    };
    const registration = { pushManager };
    const supported = this.options.supported ?? true;
    return {
      serviceWorker: supported
        ? {
            register: (url: string) => {
              this.registered.push(url);
              return Promise.resolve(registration);
            },
            ready: Promise.resolve(registration),
            getRegistration: () => Promise.resolve(registration),
            addEventListener: (_type, listener) => {
              this.listeners.add(listener);
            },
            removeEventListener: (_type, listener) => {
              this.listeners.delete(listener);
            },
          }
        : null,
      notifications: supported ? this : null,
      storage: window.localStorage,
    };
  }

  requestPermission(): Promise<NotificationPermission> {
    this.permissionRequests += 1;
    this.permission = this.answer;
    return Promise.resolve(this.answer);
  }

  /** A subscription this browser made earlier (e.g. a week ago), remembered as the device token. */
  subscribeEarlier(): string {
    this.current = new FakeSubscription();
    return JSON.stringify(this.current.toJSON());
  }

  /** The service worker offers a push to the page (lib/push/service-worker-protocol.ts); the page's replies. */
  offer(data: unknown): unknown[] {
    const replies: unknown[] = [];
    for (const listener of this.listeners) listener({ data, ports: [{ postMessage: (reply) => replies.push(reply) }] });
    return replies;
  }

  offerPush(message: PushMessage): unknown[] {
    const offer: PushOffer = { type: 'uvd:push', message };
    return this.offer(offer);
  }

  get listening(): boolean {
    return this.listeners.size > 0;
  }
}
