/**
 * Contracts of the identity provider (behaviour §7 "Identity provider"): a Keycloak-compatible subset per realm,
 * mounted at the identity base address (`RuntimeConfig.identity`). Field names are OAuth 2.0 / OpenID Connect's,
 * so any standard client (keycloak-js, openid-client) talks to it, and the console talks to a real Keycloak alike.
 */
import { z } from 'zod';
import { Text } from './common.ts';
import { defineRoute } from './route.ts';

/** An organization's id, which is its realm name: what the site import and `npm run admin:create` accept for a new one. */
export const OrganizationId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and dashes');

/** Scopes the provider grants; `offline_access` starts an offline session (long-lived refresh token). */
export const Scope = z.enum(['openid', 'profile', 'email', 'offline_access']);
export type Scope = z.infer<typeof Scope>;

export const RealmParams = z.object({
  organization: Text().min(1).describe('The realm: the organization name, lowercase'),
});
export type RealmParams = z.infer<typeof RealmParams>;

/** RFC 6749 §5.2 error body (also RFC 7009 and the userinfo `invalid_token`). */
export const OAuthError = z.object({
  error: z.string().describe('invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, …'),
  error_description: z.string().optional(),
});
export type OAuthError = z.infer<typeof OAuthError>;

export const OAuthErrorCode = {
  invalidRequest: 'invalid_request',
  invalidClient: 'invalid_client',
  invalidGrant: 'invalid_grant',
  unauthorizedClient: 'unauthorized_client',
  unsupportedGrantType: 'unsupported_grant_type',
  invalidToken: 'invalid_token',
  rateLimited: 'rate_limited',
  serverError: 'server_error',
} as const;

export const OpenIdConfiguration = z.object({
  issuer: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string(),
  end_session_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  jwks_uri: z.string(),
  grant_types_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  id_token_signing_alg_values_supported: z.array(z.string()),
  userinfo_signing_alg_values_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  claims_supported: z.array(z.string()),
});
export type OpenIdConfiguration = z.infer<typeof OpenIdConfiguration>;

/** A public JSON Web Key (RFC 7517); EC P-256 for ES256 today. */
export const Jwk = z.looseObject({
  kty: z.string(),
  kid: z.string().optional(),
  alg: z.string().optional(),
  use: z.string().optional(),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
});
export const Jwks = z.object({ keys: z.array(Jwk) });
export type Jwks = z.infer<typeof Jwks>;

/**
 * Form of the token endpoint (application/x-www-form-urlencoded). Every field is optional in the schema so a
 * missing one is answered the RFC 6749 way (`invalid_request` naming it) rather than with the API's error shape.
 */
export const TokenRequest = z.object({
  grant_type: Text().optional(),
  client_id: Text().optional(),
  username: Text().optional(),
  password: Text().optional(),
  scope: Text().optional(),
  refresh_token: Text().optional(),
});
export type TokenRequest = z.infer<typeof TokenRequest>;

/** Behaviour §7: the console adds `?scope=offline_access` to the password grant's address. */
export const TokenQuery = z.object({ scope: Text().optional() });
export type TokenQuery = z.infer<typeof TokenQuery>;

export const TokenResponse = z.object({
  access_token: z.string(),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  id_token: z.string().optional(),
  'not-before-policy': z.number().int(),
  session_state: z.string(),
  scope: z.string(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

/** RFC 7009 form. */
export const RevokeRequest = z.object({
  client_id: Text().optional(),
  token: Text().optional(),
  token_type_hint: Text().optional(),
});
export type RevokeRequest = z.infer<typeof RevokeRequest>;

/** Behaviour §7: logout with the bearer header and form client_id, refresh_token. */
export const LogoutRequest = z.object({
  client_id: Text().optional(),
  refresh_token: Text().optional(),
});
export type LogoutRequest = z.infer<typeof LogoutRequest>;

export const UserInfo = z.object({
  sub: z.string(),
  preferred_username: z.string(),
  given_name: z.string(),
  family_name: z.string(),
  name: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  realm_access: z.object({ roles: z.array(z.string()) }),
  groups: z.array(z.string()),
});
export type UserInfo = z.infer<typeof UserInfo>;

const realmPath = '/realms/:organization';
const oidcPath = `${realmPath}/protocol/openid-connect`;
const tags = ['identity'] as const;

export const getOpenIdConfiguration = defineRoute({
  method: 'GET',
  path: `${realmPath}/.well-known/openid-configuration`,
  summary: 'OpenID Connect discovery document of a realm',
  tags,
  auth: false,
  params: RealmParams,
  response: { 200: OpenIdConfiguration, 404: OAuthError },
});

export const getCerts = defineRoute({
  method: 'GET',
  path: `${oidcPath}/certs`,
  summary: 'Public signing keys of a realm (JWKS)',
  tags,
  auth: false,
  params: RealmParams,
  response: { 200: Jwks, 404: OAuthError },
});

export const postToken = defineRoute({
  method: 'POST',
  path: `${oidcPath}/token`,
  summary: 'Token endpoint: password and refresh_token grants',
  tags,
  auth: false,
  params: RealmParams,
  querystring: TokenQuery,
  body: TokenRequest,
  // 503: shedding load, or a refresh token presented twice at once whose first exchange is still being answered.
  response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError, 404: OAuthError, 429: OAuthError, 503: OAuthError },
});

export const postRevoke = defineRoute({
  method: 'POST',
  path: `${oidcPath}/revoke`,
  summary: 'Token revocation (RFC 7009); always 200 for tokens it does not know',
  tags,
  auth: false,
  params: RealmParams,
  body: RevokeRequest,
  response: { 200: z.null(), 400: OAuthError, 401: OAuthError, 404: OAuthError },
});

export const postLogout = defineRoute({
  method: 'POST',
  path: `${oidcPath}/logout`,
  summary: 'Ends the session of a refresh token (or of the bearer token)',
  tags,
  auth: false,
  params: RealmParams,
  body: LogoutRequest,
  response: { 204: z.null(), 400: OAuthError, 401: OAuthError, 404: OAuthError },
});

export const getUserInfo = defineRoute({
  method: 'GET',
  path: `${oidcPath}/userinfo`,
  summary: 'Claims about the bearer of an access token',
  tags,
  auth: false,
  params: RealmParams,
  response: { 200: UserInfo, 401: OAuthError, 404: OAuthError },
});
