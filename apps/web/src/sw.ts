/**
 * The console's service worker (vite-plugin-pwa, injectManifest): precaches the build, shows pushes, answers a
 * prompt from its notification's buttons. Its decisions are plain functions in service-worker/notifications.ts.
 *
 * A push is offered first to the console windows that are visible and focused: one signed in shows it as an in-app
 * toast (behaviour §9, for PUSH_TOAST_MS) and says so, and then no system notification shows, as the operator is looking
 * at the console already. With no such window, or none answering within OFFER_TIMEOUT_MS, the system notification
 * shows.
 */
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import type { PushMessage } from '@uvd/contracts';
import { createIndexedDbSessionMirror } from './lib/auth/session-mirror.ts';
import { OFFER_TIMEOUT_MS, PushOfferReply } from './lib/push/service-worker-protocol.ts';
import type { PushOffer } from './lib/push/service-worker-protocol.ts';
import { isShellNavigation } from './service-worker/navigation.ts';
import { followUpOf, notificationOf, outcomeOf, parsePush, planClick } from './service-worker/notifications.ts';
import type { AnswerOutcome } from './service-worker/notifications.ts';
import type { ServiceWorkerScope, WindowClient } from './service-worker/scope.ts';

declare const self: ServiceWorkerScope;

// registerType autoUpdate: a new build's worker takes over at once. Pages keep running the build they loaded
// (nothing reloads under an operator's hands); their next navigation loads the new one.
void self.skipWaiting();
clientsClaim();

/**
 * Opening a console address (/jobs, /job/…) goes to the server as before; with no network, the precached shell
 * answers instead of the browser's "No internet" page, and the console says it is offline (main.tsx). Registered
 * before the precache's own listener and stopping the event there, so one listener answers a navigation.
 */
self.addEventListener('fetch', (event) => {
  if (event.request.mode !== 'navigate' || !isShellNavigation(new URL(event.request.url).pathname)) return;
  event.stopImmediatePropagation();
  event.respondWith(fetch(event.request).catch(async () => (await matchPrecache('index.html')) ?? Response.error()));
});

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

const sessionMirror = createIndexedDbSessionMirror();

/** Resolves true when the window showed the push itself. */
const offer = (client: WindowClient, message: PushMessage): Promise<boolean> =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    const done = (shown: boolean) => {
      clearTimeout(timer);
      channel.port1.close();
      resolve(shown);
    };
    const timer = setTimeout(() => {
      done(false);
    }, OFFER_TIMEOUT_MS);
    channel.port1.onmessage = (event: MessageEvent<unknown>) => {
      done(PushOfferReply.safeParse(event.data).data?.shown === true);
    };
    const envelope: PushOffer = { type: 'uvd:push', message };
    client.postMessage(envelope, [channel.port2]);
  });

const showPush = async (message: PushMessage): Promise<void> => {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const watched = windows.filter((client) => client.visibilityState === 'visible' && client.focused);
  const shown = await Promise.all(watched.map((client) => offer(client, message)));
  if (shown.includes(true)) return;
  const { title, options } = notificationOf(message);
  await self.registration.showNotification(title, options);
};

/** Focuses a console window and takes it to `path`, or opens one there. */
const openConsole = async (path: string): Promise<void> => {
  const url = new URL(path, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: 'window' });
  const target = windows.find((client) => client.focused) ?? windows[0];
  if (target) {
    const focused = await target.focus().catch(() => target);
    if (await focused.navigate(url).catch(() => null)) return;
  }
  await self.clients.openWindow(url);
};

const onNotificationClick = async (data: unknown, action: string): Promise<void> => {
  const session = action === '' ? null : await sessionMirror.read().catch(() => null);
  const plan = planClick(data, action, session, Date.now());
  if (plan.kind === 'open') {
    await openConsole(plan.path);
    return;
  }
  let outcome: AnswerOutcome;
  try {
    const reply = await fetch(plan.url, plan.init);
    outcome = outcomeOf(reply.status, await reply.json().catch(() => null));
  } catch {
    outcome = 'failed';
  }
  if (outcome === 'answered') return;
  if (outcome === 'open') {
    await openConsole(plan.path);
    return;
  }
  const { title, options } = followUpOf(plan.message, outcome, self.navigator.language);
  await self.registration.showNotification(title, options);
};

self.addEventListener('push', (event) => {
  const message = parsePush(event.data?.text() ?? null);
  if (message) event.waitUntil(showPush(message));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(onNotificationClick(event.notification.data, event.action));
});
