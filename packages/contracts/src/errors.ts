import { z } from 'zod';

/** The one error shape of every 4xx/5xx reply (behaviour §8). */
export const ApiError = z.object({
  error: z.string().describe('Machine-readable code, e.g. validation_error or jobControls.errorJobRunning'),
  message: z.string().describe('Human-readable sentence naming what is wrong'),
  details: z.unknown().optional(),
});
export type ApiError = z.infer<typeof ApiError>;

/** Codes used across the API. Where behaviour §8 names a translation key as the code, it is used verbatim. */
export const ErrorCode = {
  validation: 'validation_error',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  conflict: 'conflict',
  xsrf: 'xsrf_token_mismatch',
  rateLimited: 'rate_limited',
  jobRunning: 'jobControls.errorJobRunning',
  duplicateRoom: 'duplicate_room',
  /** An admin asked to delete their own account: refused, so an organization never deletes its last admin by accident. */
  cannotDeleteSelf: 'cannot_delete_self',
  /**
   * 409: an admin asked to set their own password with the admin's call, which would make them change it again at
   * once and sign them out: their own password is chosen with POST /user/my-password, proving the current one.
   */
  cannotSetOwnPassword: 'cannot_set_own_password',
  /** 403: an admin set this account's password, and its user has not chosen their own yet (POST /user/my-password). */
  passwordChangeRequired: 'password_change_required',
  internal: 'internal_error',
  /** 503 with Retry-After: the server sheds load rather than queue a request it cannot answer in time. */
  overloaded: 'overloaded',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Standard error replies a protected route declares besides its success reply. */
export const errorResponses = {
  400: ApiError,
  401: ApiError,
  403: ApiError,
  404: ApiError,
  409: ApiError,
} as const;
