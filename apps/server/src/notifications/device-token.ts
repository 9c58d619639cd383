/**
 * What a device token may be (behaviour §7 token): a Web Push subscription whose endpoint is a browser vendor's push
 * service (or a host the deployment allows with PUSH_ENDPOINT_HOSTS), or a native token for FCM. Stored in one
 * canonical form, so the same subscription sent with its keys in another order is the same device.
 */
import { parseDeviceToken, type DeviceTokenKind } from '@uvd/contracts';

/** The public push services of the major browsers (Chrome/Edge via FCM, Firefox, Safari, legacy Edge). */
const PUBLIC_PUSH_HOSTS = ['fcm.googleapis.com', 'web.push.apple.com', 'updates.push.services.mozilla.com'];
const PUBLIC_PUSH_SUFFIXES = ['.push.services.mozilla.com', '.push.apple.com', '.notify.windows.com'];

const isPublicPushHost = (host: string) =>
  PUBLIC_PUSH_HOSTS.includes(host) || PUBLIC_PUSH_SUFFIXES.some((suffix) => host.endsWith(suffix));

export type CheckedToken = { kind: DeviceTokenKind; token: string } | { error: string };

/** `allowedHosts` 'any' only canonicalizes (unsubscribing a device whose host is no longer allowed). */
export function checkDeviceToken(token: string, allowedHosts: readonly string[] | 'any'): CheckedToken {
  const parsed = parseDeviceToken(token);
  if ('error' in parsed) return parsed;
  if (parsed.kind === 'fcm') return { kind: 'fcm', token: parsed.token };
  const { endpoint, keys } = parsed.subscription;
  const url = new URL(endpoint);
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (allowedHosts === 'any' || allowedHosts.includes(host)) {
    // An allowed private host may be plain HTTP (a push service on the same network, or a test's stand-in).
  } else if (!isPublicPushHost(host)) {
    return { error: `The push endpoint host "${host}" is not a known browser push service (PUSH_ENDPOINT_HOSTS allows others)` };
  } else if (url.protocol !== 'https:') {
    return { error: 'A push endpoint must use https' };
  }
  return { kind: 'webpush', token: JSON.stringify({ endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } }) };
}
