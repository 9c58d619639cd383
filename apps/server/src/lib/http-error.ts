import { ErrorCode } from '@uvd/contracts';

/** An error that becomes a `{ error, message, details? }` reply with its status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, details?: unknown, code: string = ErrorCode.validation) =>
  new HttpError(400, code, message, details);
export const unauthorized = (message = 'A valid bearer token is required.') =>
  new HttpError(401, ErrorCode.unauthorized, message);
export const forbidden = (message = 'Your role does not allow this.') => new HttpError(403, ErrorCode.forbidden, message);
export const notFound = (what: string) => new HttpError(404, ErrorCode.notFound, `${what} was not found.`);
export const conflict = (message: string, code: string = ErrorCode.conflict, details?: unknown) =>
  new HttpError(409, code, message, details);
