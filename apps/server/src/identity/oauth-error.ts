/**
 * Errors of the identity provider answer in OAuth's shape (RFC 6749 §5.2, RFC 6750 §3), not the API's
 * `{error, message}`: standard OIDC clients read `error` and `error_description`.
 */
import { OAuthErrorCode, type OAuthError } from '@uvd/contracts';

export class OAuthHttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthHttpError';
  }

  get body(): OAuthError {
    return { error: this.code, error_description: this.description };
  }
}

export const invalidRequest = (description: string) => new OAuthHttpError(400, OAuthErrorCode.invalidRequest, description);
export const invalidGrant = (description: string) => new OAuthHttpError(400, OAuthErrorCode.invalidGrant, description);
export const invalidClient = (description = 'Invalid client or Invalid client credentials') =>
  new OAuthHttpError(401, OAuthErrorCode.invalidClient, description);
export const unsupportedGrantType = (description: string) =>
  new OAuthHttpError(400, OAuthErrorCode.unsupportedGrantType, description);
export const invalidToken = (description: string) =>
  new OAuthHttpError(401, OAuthErrorCode.invalidToken, description, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${description.replaceAll('"', "'")}"`,
  });
/** Keycloak's answer for an unknown realm. */
export const realmNotFound = () => new OAuthHttpError(404, 'Realm does not exist', 'Realm does not exist');
