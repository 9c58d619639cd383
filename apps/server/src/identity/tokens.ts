/** Access and ID tokens of the built-in identity provider (Keycloak-shaped claims). */
import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import type { KeyStore } from './keys.ts';
import { SIGNING_ALG } from './keys.ts';

export interface TokenSubject {
  userId: string;
  orgId: string;
  username: string;
  roles: string[];
  firstName: string;
  lastName: string;
  email: string;
  groups: string[];
}

export const realmIssuer = (issuerBase: string, orgId: string) => `${issuerBase}/realms/${orgId}`;

export interface SignOptions {
  keys: KeyStore;
  issuer: string;
  clientId: string;
  ttlSeconds: number;
  sessionId: string;
  scope: string;
}

export async function signAccessToken(subject: TokenSubject, options: SignOptions): Promise<string> {
  return new SignJWT({
    typ: 'Bearer',
    azp: options.clientId,
    sid: options.sessionId,
    scope: options.scope,
    realm_access: { roles: subject.roles },
    preferred_username: subject.username,
    given_name: subject.firstName,
    family_name: subject.lastName,
    name: `${subject.firstName} ${subject.lastName}`.trim(),
    email: subject.email,
    groups: subject.groups,
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: options.keys.kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setSubject(subject.userId)
    .setAudience(['account', options.clientId])
    .setIssuedAt()
    .setJti(crypto.randomUUID())
    .setExpirationTime(`${options.ttlSeconds}s`)
    .sign(options.keys.privateKey);
}

/** The ID token of the openid scope: audience is the client; `at_hash` binds it to its access token. */
export async function signIdToken(
  subject: TokenSubject,
  options: Omit<SignOptions, 'scope'> & { accessToken: string; authTime: number },
): Promise<string> {
  const digest = createHash('sha256').update(options.accessToken).digest();
  return new SignJWT({
    typ: 'ID',
    azp: options.clientId,
    sid: options.sessionId,
    auth_time: options.authTime,
    at_hash: digest.subarray(0, digest.length / 2).toString('base64url'),
    preferred_username: subject.username,
    given_name: subject.firstName,
    family_name: subject.lastName,
    name: `${subject.firstName} ${subject.lastName}`.trim(),
    email: subject.email,
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: options.keys.kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setSubject(subject.userId)
    .setAudience(options.clientId)
    .setIssuedAt()
    .setJti(crypto.randomUUID())
    .setExpirationTime(`${options.ttlSeconds}s`)
    .sign(options.keys.privateKey);
}

export const REFRESH_ALG = 'HS256';

/** What a refresh token carries: its row (`jti`), its session and who it was issued to. */
export interface RefreshClaims {
  jti: string;
  sid: string;
  sub: string;
  /** The realm, read from the issuer's path (the host may differ behind proxies, as for access tokens). */
  realm: string;
  clientId: string;
  scope: string;
  offline: boolean;
}

/** Keycloak-shaped refresh token (`typ` Refresh or Offline), HMAC-signed with the key store's refresh secret. */
export async function signRefreshToken(
  claims: Omit<RefreshClaims, 'realm'>,
  options: { keys: KeyStore; issuer: string; expiresAt: Date },
): Promise<string> {
  return new SignJWT({
    typ: claims.offline ? 'Offline' : 'Refresh',
    azp: claims.clientId,
    sid: claims.sid,
    scope: claims.scope,
  })
    .setProtectedHeader({ alg: REFRESH_ALG, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setAudience(options.issuer)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setJti(claims.jti)
    .setExpirationTime(options.expiresAt)
    .sign(options.keys.refreshSecret);
}

const RefreshPayload = z.object({
  iss: z.string(),
  sub: z.string(),
  jti: z.uuid(),
  sid: z.uuid(),
  azp: z.string(),
  scope: z.string().default(''),
  typ: z.enum(['Refresh', 'Offline']),
});

const REALM_OF_ISSUER = /\/realms\/([^/]+)$/;

/** The claims of a refresh token signed by us and not expired, else undefined (callers answer invalid_grant). */
export async function verifyRefreshToken(token: string, keys: KeyStore): Promise<RefreshClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, keys.refreshSecret, { algorithms: [REFRESH_ALG] });
    const claims = RefreshPayload.safeParse(payload);
    if (!claims.success) return undefined;
    const realm = REALM_OF_ISSUER.exec(claims.data.iss)?.[1];
    if (!realm) return undefined;
    const { jti, sid, sub, azp, scope, typ } = claims.data;
    return { jti, sid, sub, realm, clientId: azp, scope, offline: typ === 'Offline' };
  } catch {
    return undefined;
  }
}
