/**
 * Which push device this console runs on: the mobile shell's native push inside Capacitor, else the browser's Web
 * Push. Each is a chunk of its own, loaded on first use (the settings switch, a signed-in session, logout), so a
 * first visit's JavaScript does not grow with either (initial JS stays under 150 KB gzipped).
 */
import type { RuntimeConfig } from '../../config/runtime-config.ts';
import type { NativePushContext } from './native-push-hooks.ts';
import type { PushDevice } from './push-device.ts';

/**
 * Capacitor's native bridge defines `window.Capacitor` before the page's scripts run; asked without importing
 * @capacitor/core, which a browser never needs.
 */
export const isNativeShell = (): boolean => {
  const capacitor: unknown = Reflect.get(globalThis, 'Capacitor');
  if (typeof capacitor !== 'object' || capacitor === null) return false;
  const isNativePlatform: unknown = Reflect.get(capacitor, 'isNativePlatform');
  return typeof isNativePlatform === 'function' && Reflect.apply(isNativePlatform, capacitor, []) === true;
};

/** `native`: what the mobile shell's notification buttons and taps need of the console (native-push-hooks.ts). */
export const loadPushDevice = async (config: Pick<RuntimeConfig, 'vapidPublicKey'>, native: NativePushContext): Promise<PushDevice> => {
  if (isNativeShell()) {
    const [{ createNativePushDevice }, { nativePushHooks }] = await Promise.all([import('./native-push-device.ts'), import('./native-push-hooks.ts')]);
    return createNativePushDevice(nativePushHooks(native));
  }
  const { createWebPushDevice } = await import('./web-push-device.ts');
  return createWebPushDevice({ vapidPublicKey: config.vapidPublicKey });
};
