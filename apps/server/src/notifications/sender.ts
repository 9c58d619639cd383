/**
 * One interface for every push service: Web Push (browsers, the installable console) and FCM (the mobile shell).
 * The delivery worker hands a sender one message for one device and acts on the outcome: done, retry later, or
 * forget the device (the push service says it no longer exists).
 */
import type { PushMessage } from '@uvd/contracts';

export type SendOutcome =
  | { kind: 'sent'; status: number }
  /** The subscription or token is gone for good (Web Push 404/410, FCM UNREGISTERED): delete the device. */
  | { kind: 'gone'; status: number; reason: string }
  /** Worth another try later (network error, 429, 5xx). */
  | { kind: 'retry'; status?: number; reason: string }
  /** Will never succeed as it is (a 400 for this message): give up on this delivery, keep the device. */
  | { kind: 'failed'; status?: number; reason: string };

export interface SendOptions {
  /** Seconds the push service keeps an undelivered message (Web Push TTL, FCM android.ttl). */
  ttlSeconds: number;
  /** High for prompts and failures: the phone wakes at once. */
  urgency: 'normal' | 'high';
  /**
   * Collapses repeated sends of one push at the push service (Web Push Topic header, FCM collapse key): a retry
   * after an uncertain send replaces the first copy instead of showing twice.
   */
  collapseKey: string;
}

export interface PushSender {
  readonly kind: 'webpush' | 'fcm';
  send(token: string, message: PushMessage, options: SendOptions): Promise<SendOutcome>;
}
