/**
 * A device that can receive pushes: the browser (Web Push through the service worker) or the mobile shell
 * (native push through Capacitor). The settings switch, logout and the in-app toast talk only to this interface;
 * `web-push-device.ts` and `native-push-device.ts` implement it.
 */
import type { PushMessage } from '@uvd/contracts';

export interface PushDevice {
  readonly kind: 'webpush' | 'native';
  /** Whether this device can receive pushes at all (a browser without service workers or Push API cannot). */
  supported(): boolean;
  /**
   * Asks the user's permission if needed and returns behaviour §7's device token: the JSON of the browser's
   * PushSubscription, or the native push token. Rejects when permission is refused.
   */
  register(): Promise<string>;
  /** The token this device last registered with, or null (kept in native preferences / local storage). */
  currentToken(): Promise<string | null>;
  /** Ends this device's subscription with its push service and forgets the token. */
  unregister(): Promise<void>;
  /** Pushes that arrive while the console is open (shown as an in-app toast); returns the unsubscriber. */
  onForegroundMessage(listener: (message: PushMessage) => void): () => void;
}
