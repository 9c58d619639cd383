/**
 * A fresh database for one test file: in-memory PGlite by default, or, when TEST_DATABASE_URL names a
 * PostgreSQL server, a new database on it (dropped afterwards), so the same suite runs on both engines.
 */
import { createScratchDatabase, type ScratchDatabase } from '../db/scratch-database.ts';

export type TestDatabase = ScratchDatabase;

export const testEngine = (): 'postgres' | 'pglite' => (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');

export const createTestDatabase = (): Promise<TestDatabase> =>
  createScratchDatabase(process.env.TEST_DATABASE_URL || undefined, 'uvd_test');
