/**
 * A fresh database for one test file: in-memory PGlite by default, or, when TEST_DATABASE_URL names a
 * PostgreSQL server, a new database on it (dropped afterwards), so the same suite runs on both engines.
 */
import { createScratchDatabase, type ScratchDatabase } from '../db/scratch-database.ts';

export type TestDatabase = ScratchDatabase;

export const testEngine = (): 'postgres' | 'pglite' => (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');

/**
 * On PostgreSQL, a test server's pool closes a connection unused for a second (node-postgres keeps it 10 s): the
 * servers of four test workers otherwise held up to 98 of the 100 connections a default PostgreSQL allows.
 */
export const createTestDatabase = (): Promise<TestDatabase> =>
  createScratchDatabase(process.env.TEST_DATABASE_URL || undefined, 'uvd_test', { poolIdleTimeoutMs: 1_000 });
