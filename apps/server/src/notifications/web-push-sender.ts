/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payload encryption (RFC 8291). The `web-push` package
 * signs and encrypts; the request goes out through the platform's fetch, which pools connections per push
 * service and also speaks plain HTTP to a push service on an allowed private host (tests, private deployments).
 */
import webpush from 'web-push';
import { WebPushSubscription, type PushMessage } from '@uvd/contracts';
import type { PushSender, SendOutcome } from './sender.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** `timeoutMs`: a push service that takes longer is treated as unreachable and the delivery retried. */
export function createWebPushSender(vapid: VapidKeys, subject: string, timeoutMs: number): PushSender {
  return {
    kind: 'webpush',
    async send(token, message: PushMessage, options): Promise<SendOutcome> {
      let subscription: WebPushSubscription;
      try {
        subscription = WebPushSubscription.parse(JSON.parse(token));
      } catch {
        return { kind: 'gone', status: 0, reason: 'The stored token is not a Web Push subscription.' };
      }
      const details = webpush.generateRequestDetails(subscription, JSON.stringify(message), {
        vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
        contentEncoding: 'aes128gcm',
        TTL: options.ttlSeconds,
        urgency: options.urgency,
        topic: options.collapseKey,
      });
      let response: Response;
      try {
        response = await fetch(details.endpoint, {
          method: 'POST',
          headers: details.headers,
          body: details.body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.arrayBuffer();
      } catch (error) {
        return { kind: 'retry', reason: error instanceof Error ? error.message : 'network error' };
      }
      return outcomeOf(response.status);
    },
  };
}

/** RFC 8030 §5, §7: 201 accepted; 404/410 the subscription is gone; 413/400 never; 429 and 5xx later. */
export function outcomeOf(status: number): SendOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent', status };
  if (status === 404 || status === 410) return { kind: 'gone', status, reason: `push service answered ${status}` };
  if (status === 429 || status >= 500) return { kind: 'retry', status, reason: `push service answered ${status}` };
  return { kind: 'failed', status, reason: `push service answered ${status}` };
}
