/**
 * Verifies bearer tokens. The API trusts a token only through its issuer's JWKS: the built-in provider's
 * key set, or, with IDP_ISSUER_BASE, the remote JWKS of a real Keycloak realm. The token's realm is its
 * organization.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { Role } from '@uvd/contracts';
import { unauthorized } from '../lib/http-error.ts';
import type { KeyStore } from './keys.ts';
import type { Principal } from './principal.ts';

const Claims = z.object({
  sub: z.string().min(1),
  preferred_username: z.string().default(''),
  given_name: z.string().default(''),
  family_name: z.string().default(''),
  email: z.string().default(''),
  groups: z.array(z.string()).default([]),
  realm_access: z.object({ roles: z.array(z.string()).default([]) }).default({ roles: [] }),
});

export type TokenVerifier = (token: string) => Promise<Principal>;

const REALM_PATH = /\/realms\/([a-z0-9][a-z0-9_-]*)$/;

/**
 * Built-in provider: the signature by our own keys proves the token, whatever host name it was issued under
 * (like Keycloak with a dynamic hostname), so the realm is read from the issuer's path.
 */
export function localVerifier(keys: KeyStore): TokenVerifier {
  const jwks = createLocalJWKSet(keys.jwks);
  return (token) => verifyWith(token, () => jwks, undefined);
}

/** External provider: the issuer must be `${issuerBase}/realms/{org}`; keys come from that realm's JWKS. */
export function remoteVerifier(issuerBase: string): TokenVerifier {
  const sets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  return (token) =>
    verifyWith(
      token,
      (issuer) => {
        let set = sets.get(issuer);
        if (!set) {
          set = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
          sets.set(issuer, set);
        }
        return set;
      },
      issuerBase.replace(/\/$/, ''),
    );
}

async function verifyWith(
  token: string,
  keySetFor: (issuer: string) => JWTVerifyGetKey,
  issuerBase: string | undefined,
): Promise<Principal> {
  let issuer: string;
  try {
    issuer = decodeJwt(token).iss ?? '';
  } catch {
    throw unauthorized('The bearer token is malformed.');
  }
  const realm = REALM_PATH.exec(issuer)?.[1];
  if (!realm || (issuerBase !== undefined && issuer !== `${issuerBase}/realms/${realm}`)) {
    throw unauthorized('The bearer token was not issued by a trusted realm.');
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySetFor(issuer), { issuer, clockTolerance: 5 }));
  } catch {
    throw unauthorized('The bearer token is invalid or has expired.');
  }
  if (payload.typ !== undefined && payload.typ !== 'Bearer') throw unauthorized('Only access tokens are accepted.');
  const claims = Claims.safeParse(payload);
  if (!claims.success) throw unauthorized('The bearer token lacks required claims.');
  const c = claims.data;
  return {
    sub: c.sub,
    orgId: realm,
    username: c.preferred_username,
    roles: c.realm_access.roles.filter((role): role is Role => Role.safeParse(role).success),
    givenName: c.given_name,
    familyName: c.family_name,
    email: c.email,
    groups: c.groups,
    ...(payload.iat !== undefined ? { issuedAt: payload.iat } : {}),
  };
}
