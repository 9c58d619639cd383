import { removeDevice } from '@uvd/contracts';
import type { ApiClient } from '../api-client.ts';
import type { PushDevice } from './push-device.ts';

/**
 * Behaviour §7 at logout: the device stops receiving this user's pushes (DELETE /remove with its current token) while
 * the session's token still works, then its registration ends, so the next sign-in on this device starts without
 * one (and renews it if that user has notifications on). Rejects when the server could not be told.
 */
export const removePushDevice = async (api: ApiClient, device: Pick<PushDevice, 'currentToken' | 'unregister'>, userId: string): Promise<void> => {
  const deviceToken = await device.currentToken();
  if (!deviceToken) return;
  try {
    await api.request(removeDevice, { body: { deviceToken, userId } });
  } finally {
    await device.unregister().catch(() => undefined);
  }
};
