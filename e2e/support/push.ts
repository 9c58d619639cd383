/**
 * The console's service worker and Web Push in Chromium here: there is no push service on this machine, so
 * `pushManager.subscribe` is refused and tests deliver pushes to the worker's registration through the DevTools
 * protocol (ServiceWorker.deliverPushMessage), as a push service would after decrypting one.
 */
import { PushMessage } from '@uvd/contracts';
import type { CDPSession, Worker } from 'playwright-core';
import { expect } from 'vitest';
import { z } from 'zod';
import { baseUrl, type Session } from './browser.ts';

const WORKER_TIMEOUT_MS = 30_000;

/** The console's service worker, once the page's registration has activated it. */
export async function activeWorker(session: Session): Promise<Worker> {
  const registration = () =>
    session.page.evaluate(async () => {
      // `ready` resolves with an active worker, possibly still activating.
      const ready = await navigator.serviceWorker.ready;
      return { scope: ready.scope, script: ready.active?.scriptURL ?? null, state: ready.active?.state ?? null };
    });
  // Registered 5 s after the page's load, then activated once it has precached the build.
  await expect.poll(registration, { timeout: WORKER_TIMEOUT_MS }).toEqual({ scope: `${baseUrl()}/`, script: `${baseUrl()}/sw.js`, state: 'activated' });
  const [worker] = session.context.serviceWorkers();
  return worker ?? (await session.context.waitForEvent('serviceworker'));
}

/** Delivers push messages to the console's registration, as the push service would (Chromium DevTools protocol). */
export async function pushDelivery(session: Session): Promise<{ deliver: (message: PushMessage) => Promise<void>; cdp: CDPSession }> {
  const cdp = await session.context.newCDPSession(session.page);
  const registrationId = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const registration = registrations.find((candidate) => candidate.scopeURL === `${baseUrl()}/` && !candidate.isDeleted);
      if (registration) resolve(registration.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const id = await registrationId;
  return {
    cdp,
    deliver: async (message) => {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: baseUrl(), registrationId: id, data: JSON.stringify(PushMessage.parse(message)) });
    },
  };
}

export const ShownNotification = z.object({
  title: z.string(),
  body: z.string(),
  tag: z.string(),
  requireInteraction: z.boolean(),
  actions: z.array(z.object({ action: z.string(), title: z.string() })),
});

/** The system notifications the worker shows now. */
export async function shownNotifications(worker: Worker): Promise<z.infer<typeof ShownNotification>[]> {
  const shown: unknown = await worker.evaluate(`self.registration.getNotifications().then((list) => list.map((n) => ({
    title: n.title, body: n.body, tag: n.tag, requireInteraction: n.requireInteraction,
    actions: n.actions.map((a) => ({ action: a.action, title: a.title })),
  })))`);
  return z.array(ShownNotification).parse(shown);
}

/** A click on one of a notification's buttons, as the browser dispatches it to the worker. */
export async function clickNotificationButton(worker: Worker, tag: string, action: string): Promise<void> {
  const clicked: unknown = await worker.evaluate(
    `self.registration.getNotifications({ tag: ${JSON.stringify(tag)} }).then(([notification]) => {
      if (!notification) return false;
      self.dispatchEvent(new NotificationEvent('notificationclick', { notification, action: ${JSON.stringify(action)} }));
      return true;
    })`,
  );
  expect(clicked, `a notification tagged ${tag}`).toBe(true);
}

/** What `watchShownNotifications` gives: the count of notifications the worker has finished showing, and a wait. */
export interface ShownNotificationsWatch {
  /** How many notifications the worker has finished showing since the watch began. */
  count(): Promise<number>;
  /** The worker's notifications, read once it has finished showing `count` (default 1) since the watch began. */
  onceShown(count?: number): Promise<z.infer<typeof ShownNotification>[]>;
}

/**
 * Counts, in the worker, each notification it has finished showing (a `showNotification` whose promise resolved:
 * Chromium resolves it once the notification is on display).
 *
 * Reading the list while the worker shows one races in Chromium: `getNotifications` deletes from its store every
 * notification stored before the call began that the display does not list yet. A poll landing between the two
 * loses the notification for good: it stays on screen, but no later `getNotifications` returns it (a CI run read []
 * for 10 s after the worker had fetched the notification's icons). So the list is read only once the show is over.
 */
export async function watchShownNotifications(worker: Worker): Promise<ShownNotificationsWatch> {
  await worker.evaluate(`(() => {
    if (self.uvdShownCount !== undefined) return;
    self.uvdShownCount = 0;
    const registration = self.registration;
    const show = registration.showNotification.bind(registration);
    registration.showNotification = (...args) => show(...args).then((result) => { self.uvdShownCount += 1; return result; });
  })()`);
  const total = async () => z.number().parse(await worker.evaluate('self.uvdShownCount'));
  const before = await total();
  const count = async () => (await total()) - before;
  return {
    count,
    async onceShown(wanted = 1) {
      await expect.poll(count, { message: `${wanted} notification(s) shown` }).toBeGreaterThanOrEqual(wanted);
      return shownNotifications(worker);
    },
  };
}
