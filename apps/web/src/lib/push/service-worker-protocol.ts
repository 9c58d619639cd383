/**
 * What the console's service worker (src/sw.ts) and its pages say to each other. A push that arrives while a
 * console window is visible is offered to that window first, with a port to answer on: a window that shows it as
 * an in-app toast answers `{ shown: true }`, and the worker then shows no system notification.
 */
import { PushMessage } from '@uvd/contracts';
import { z } from 'zod';

export const PushOffer = z.object({ type: z.literal('uvd:push'), message: PushMessage });
export type PushOffer = z.infer<typeof PushOffer>;

export const PushOfferReply = z.object({ shown: z.boolean() });
export type PushOfferReply = z.infer<typeof PushOfferReply>;

/** How long the worker waits for a window's answer before it shows the system notification anyway. */
export const OFFER_TIMEOUT_MS = 1500;
