import { ApiError, OAuthError } from '@uvd/contracts';

/**
 * Behaviour §8 generic transport errors, plus a reply that does not match its contract (a server/client version skew
 * is a failure the user should see, not data the screen half-renders).
 */
export type TransportErrorKind =
  | 'network'
  | 'aborted'
  | 'timeout'
  | 'unsupported-protocol'
  | 'status'
  | 'invalid-reply';

/** The one error every call of the console rejects with. `code` and `message` are the server's when it sent them. */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';
  readonly kind: TransportErrorKind;
  readonly status: number | null;
  /** The server's machine-readable code (`error` of `{error, message}`, or the OAuth `error`). */
  readonly code: string | null;
  readonly details: unknown;

  constructor(init: { kind: TransportErrorKind; message: string; status?: number | null; code?: string | null; details?: unknown; cause?: unknown }) {
    super(init.message, { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.details = init.details;
  }
}

export const isApiRequestError = (error: unknown): error is ApiRequestError => error instanceof ApiRequestError;

const named = (error: unknown, name: string): boolean =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === name;

/**
 * Maps whatever a call threw before a reply arrived to an ApiRequestError: aborted when its signal was aborted
 * (fetch rejects with the signal's reason), a timeout, or else the network (fetch's TypeError).
 */
export const toApiRequestError = (error: unknown, signal?: AbortSignal): ApiRequestError => {
  if (error instanceof ApiRequestError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // A signal that timed out (AbortSignal.timeout) is aborted too: its reason tells the two apart.
  if (named(error, 'TimeoutError')) return new ApiRequestError({ kind: 'timeout', message, cause: error });
  if (signal?.aborted || named(error, 'AbortError')) return new ApiRequestError({ kind: 'aborted', message, cause: error });
  return new ApiRequestError({ kind: 'network', message, cause: error });
};

/** A status outside 200-299, keeping the server's `{error, message}` (or the OAuth error) when it sent one. */
export const statusError = (status: number, body: unknown): ApiRequestError => {
  const api = ApiError.safeParse(body);
  if (api.success) return new ApiRequestError({ kind: 'status', status, code: api.data.error, message: api.data.message, details: api.data.details });
  const oauth = OAuthError.safeParse(body);
  if (oauth.success) {
    return new ApiRequestError({ kind: 'status', status, code: oauth.data.error, message: oauth.data.error_description ?? oauth.data.error });
  }
  return new ApiRequestError({ kind: 'status', status, message: `Request failed with status code ${status}` });
};
