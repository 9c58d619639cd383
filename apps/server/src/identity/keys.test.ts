/**
 * The identity provider's signing key when several server processes start on one new database at once
 * (`npm run serve:cluster`): each must sign with a key every other one knows, or a token one process issued is
 * refused by the next ("The bearer token is invalid or has expired"), as the cluster's own test once saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/client.ts';
import { signingKeys } from '../db/schema.ts';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.ts';
import { loadKeyStore } from './keys.ts';

describe('signing keys of processes that start together on a new database', () => {
  let scratch: TestDatabase;
  /** A second process's own connections on PostgreSQL; PGlite has one process, whose callers share it. */
  let second: Database | undefined;
  beforeAll(async () => {
    scratch = await createTestDatabase();
    second = scratch.url ? await openDatabase({ databaseUrl: scratch.url }) : undefined;
  });
  afterAll(async () => {
    await second?.close();
    await scratch.drop();
  });

  it('are one key: each process signs with the key the others verify with', async () => {
    // Each round a new database's first start: the timing of two starts varies, so several rounds.
    for (let round = 0; round < 10; round += 1) {
      await scratch.database.db.delete(signingKeys);
      const [first, other] = await Promise.all([loadKeyStore(scratch.database.db), loadKeyStore((second ?? scratch.database).db)]);
      const known = (store: typeof first) => store.jwks.keys.map((key) => key.kid);
      expect(known(other), `round ${String(round)}: the second process knows the first's key`).toContain(first.kid);
      expect(known(first), `round ${String(round)}: the first process knows the second's key`).toContain(other.kid);
      expect(await scratch.database.db.$count(signingKeys)).toBe(1);
    }
  });
});
