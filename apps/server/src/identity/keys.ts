/**
 * Signing keys of the built-in identity provider. ES256: Keycloak supports it, and it signs an order of
 * magnitude faster than RS256, which the login and refresh throughput targets need. Keys live in the
 * database so every server process on one database signs and verifies with the same set.
 */
import { desc, sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { ADVISORY_LOCKS } from '../db/advisory-locks.ts';
import type { Db } from '../db/client.ts';
import { signingKeys } from '../db/schema.ts';

export const SIGNING_ALG = 'ES256';

export interface KeyStore {
  kid: string;
  privateKey: CryptoKey;
  /** The public JSON Web Key Set served at .../protocol/openid-connect/certs. */
  jwks: { keys: JWK[] };
  /**
   * HMAC secret of refresh tokens (HS256, as Keycloak signs them with a realm HMAC key): only this provider
   * reads them, and an HMAC check costs a fraction of an ECDSA verify on every refresh. Derived from the
   * newest private key, so every process on one database shares it and a key rotation invalidates them.
   */
  refreshSecret: Uint8Array;
}

export async function loadKeyStore(db: Db): Promise<KeyStore> {
  let rows = await db.select().from(signingKeys).orderBy(desc(signingKeys.createdAt));
  if (rows.length === 0) {
    // Processes starting together on a new database would each make a key, and one that read before the other's
    // was written would never know it, refusing every token the other signs: the first makes it under a lock, the
    // others wait and read it.
    rows = await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.firstSigningKey})`);
      const made = await tx.select().from(signingKeys).orderBy(desc(signingKeys.createdAt));
      if (made.length > 0) return made;
      const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
      const kid = randomUUID();
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
      return tx.insert(signingKeys).values({ kid, privateJwk, publicJwk }).returning();
    });
  }
  const newest = rows[0];
  if (!newest) throw new Error('No signing key could be created.');
  const privateJwk = newest.privateJwk as JWK;
  if (typeof privateJwk.d !== 'string') throw new Error('Signing key lacks its private part.');
  const privateKey = await importJWK(privateJwk, SIGNING_ALG);
  if (!('type' in privateKey)) throw new Error('Signing key must be an asymmetric key.');
  const refreshSecret = new Uint8Array(createHash('sha256').update('uvd refresh token v1\0').update(privateJwk.d).digest());
  return {
    kid: newest.kid,
    privateKey,
    refreshSecret,
    jwks: { keys: rows.map((row) => row.publicJwk as JWK) },
  };
}
