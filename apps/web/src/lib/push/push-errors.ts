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

/**
 * The browser has the Push API but refuses to subscribe: it has no push service here (a private window, a browser
 * built without one, a push service it cannot reach).
 */
export class PushServiceError extends Error {
  override readonly name = 'PushServiceError';
}

/** A step that has no answer in time (the worker's activation, the push service's subscription). */
export class PushTimeoutError extends Error {
  override readonly name = 'PushTimeoutError';
}

export type PushRegistrationFailure = 'denied' | 'unsupported' | 'no-push-service' | 'timeout' | 'failed';

const FAILURES: Partial<Record<string, PushRegistrationFailure>> = {
  PushPermissionError: 'denied',
  PushUnsupportedError: 'unsupported',
  PushServiceError: 'no-push-service',
  PushTimeoutError: 'timeout',
};

export const registrationFailureOf = (error: unknown): PushRegistrationFailure =>
  error instanceof Error ? (FAILURES[error.name] ?? 'failed') : 'failed';
