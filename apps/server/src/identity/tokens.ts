/** Access and ID tokens of the built-in identity provider (Keycloak-shaped claims). */
import { SignJWT } from 'jose';
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
