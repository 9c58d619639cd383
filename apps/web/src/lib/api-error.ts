import { AxiosError } from 'axios';
import { ApiError, OAuthError } from '@uvd/contracts';

/**
 * Spec §8 generic transport errors, plus a reply that does not match its contract (a server/client version skew
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

const transportKind = (error: AxiosError): TransportErrorKind => {
  if (error.response) return 'status';
  const timedOut = /timeout/i.test(error.message);
  if (error.code === AxiosError.ERR_CANCELED || (error.code === AxiosError.ECONNABORTED && !timedOut)) return 'aborted';
  if (error.code === AxiosError.ETIMEDOUT || error.code === AxiosError.ECONNABORTED) return 'timeout';
  if (error.code === AxiosError.ERR_NOT_SUPPORT || /unsupported protocol/i.test(error.message)) return 'unsupported-protocol';
  return 'network';
};

/** Maps whatever a call threw to an ApiRequestError, keeping the server's `{error, message}` when it sent one. */
export const toApiRequestError = (error: unknown): ApiRequestError => {
  if (error instanceof ApiRequestError) return error;
  if (!(error instanceof AxiosError)) {
    return new ApiRequestError({ kind: 'network', message: error instanceof Error ? error.message : String(error), cause: error });
  }
  const kind = transportKind(error);
  const status = error.response?.status ?? null;
  const body: unknown = error.response?.data;
  const api = ApiError.safeParse(body);
  if (api.success) {
    return new ApiRequestError({ kind, status, code: api.data.error, message: api.data.message, details: api.data.details, cause: error });
  }
  const oauth = OAuthError.safeParse(body);
  if (oauth.success) {
    return new ApiRequestError({
      kind,
      status,
      code: oauth.data.error,
      message: oauth.data.error_description ?? oauth.data.error,
      cause: error,
    });
  }
  return new ApiRequestError({ kind, status, message: error.message, cause: error });
};
