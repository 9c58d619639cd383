/**
 * The service worker's global scope, as far as src/sw.ts uses it. The web app type-checks against the DOM
 * library, which lacks the worker's events, and TypeScript's WebWorker library cannot join the same program;
 * neither library knows notification actions, so these few declarations stand in for both.
 */
import type { PushMessage } from '@uvd/contracts';
import type { PrecacheEntry } from 'workbox-precaching';

export interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}

export interface PushEvent extends ExtendableEvent {
  readonly data: { text(): string } | null;
}

export interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}

export interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
  /** The id of the button clicked; empty for a click on the notification itself. */
  readonly action: string;
}

export interface WindowClient {
  readonly url: string;
  readonly focused: boolean;
  readonly visibilityState: DocumentVisibilityState;
  postMessage(message: unknown, transfer: Transferable[]): void;
  focus(): Promise<WindowClient>;
  navigate(url: string): Promise<WindowClient | null>;
}

export interface Clients {
  matchAll(options: { type: 'window'; includeUncontrolled?: boolean }): Promise<readonly WindowClient[]>;
  openWindow(url: string): Promise<WindowClient | null>;
}

export interface NotificationAction {
  action: string;
  title: string;
}

/** What showNotification takes in the browsers that push (the DOM library's NotificationOptions lacks the last three). */
export interface PushNotificationOptions extends NotificationOptions {
  data: PushMessage;
  actions: NotificationAction[];
  timestamp: number;
}

export interface ServiceWorkerScope {
  readonly registration: ServiceWorkerRegistration;
  readonly clients: Clients;
  readonly location: { readonly origin: string };
  readonly navigator: { readonly language: string };
  /** The build's files to precache, written in by vite-plugin-pwa (injectManifest). */
  readonly __WB_MANIFEST: (PrecacheEntry | string)[];
  skipWaiting(): Promise<void>;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
}
