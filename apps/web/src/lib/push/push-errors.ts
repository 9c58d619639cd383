/**
 * Why a device could not register for pushes, for the settings switch to say so. Matched by `name`, so a device
 * implementation (native-push-device.ts) may throw its own Error with the same name instead of these classes.
 */
export class PushPermissionError extends Error {
  override readonly name = 'PushPermissionError';
}

export class PushUnsupportedError extends Error {
  override readonly name = 'PushUnsupportedError';
}

export type PushRegistrationFailure = 'denied' | 'unsupported' | 'failed';

export const registrationFailureOf = (error: unknown): PushRegistrationFailure => {
  if (!(error instanceof Error)) return 'failed';
  if (error.name === 'PushPermissionError') return 'denied';
  if (error.name === 'PushUnsupportedError') return 'unsupported';
  return 'failed';
};
