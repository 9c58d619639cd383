import { readdirSync, readFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const NODE_TESTS = ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts', 'apps/robot-sim/src/**/*.test.ts', 'apps/mobile/*.test.ts'];

/**
 * The API suite runs on in-memory PGlite always and, when TEST_DATABASE_URL names a PostgreSQL server, a second
 * time on it (project `postgres`: each file a new database there), in the same run and the same pool of workers.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;

/**
 * The server's test files that run on the test database: those that take it from the harness
 * (testing/harness.ts, testing/test-database.ts, db/scratch-database.ts) or read TEST_DATABASE_URL themselves. The
 * others (pure functions, the embedded data folder's lock, the seed process on a data folder of its own) do the same
 * on either engine, so the second pass leaves them out: a second run would test nothing new.
 */
const SERVER_SOURCE = 'apps/server/src';
const USES_TEST_DATABASE = /(harness|test-database|scratch-database)\.ts|TEST_DATABASE_URL|testEngine/;
const databaseTests = (): string[] =>
  readdirSync(SERVER_SOURCE, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && USES_TEST_DATABASE.test(readFileSync(`${SERVER_SOURCE}/${file}`, 'utf8')))
    .map((file) => `${SERVER_SOURCE}/${file}`);

/**
 * Node files share their worker's modules (`isolate: false`): a test file no longer pays its own two seconds of
 * importing the server, and nothing in the server keeps state at module level that a test depends on being fresh
 * (each test builds its own app over its own database).
 */
const nodeProject = (name: string, include: string[], databaseUrl: string): TestProjectInlineConfiguration => ({
  test: {
    name,
    include,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    isolate: false,
    sequence: { groupOrder: 1 },
    env: { TEST_DATABASE_URL: databaseUrl },
    // The server built (tsc -b, nothing to do when dist is as new as the sources): the tests that start it as a
    // process of its own run the built JavaScript (apps/server/src/testing/built-server.ts).
    globalSetup: ['apps/server/src/testing/global-build.ts'],
  },
});

export default defineConfig({
  test: {
    // Most of a test's time is waiting (a robot's next state, a retry, a timer). On a two-core machine where
    // this suite alone took 448 s and 587 s of CPU with three workers, a third of the machine was idle: four took
    // 392-397 s (77 % busy, every test passing in three runs). Five took 365 s but the files on PostgreSQL ran out of
    // its connections (`max_connections` 100: each test server's pool holds up to ten). On an earlier machine half as
    // fast, more than three made it so busy (a load average of 13) that tests of time limits failed: TEST_WORKERS=3
    // on such a machine. PGlite instances are
    // memory-heavy WebAssembly (a few hundred MB each).
    maxWorkers: Number(process.env.TEST_WORKERS ?? 4),
    projects: [
      nodeProject('node', NODE_TESTS, ''),
      ...(postgresUrl ? [nodeProject('postgres', databaseTests(), postgresUrl)] : []),
      {
        plugins: [react()],
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['apps/web/src/testing/setup.ts'],
          testTimeout: 15_000,
          // As the node files: a file no longer pays its own imports of React and the console (the web files alone
          // 125 -> 78 s, 245 -> 150 s of CPU). The setup file puts back what a file stubbed (testing/setup.ts).
          isolate: false,
          // One worker, before the node files (a group of its own: vitest runs groups one after the other), which
          // vitest hands all of them at once. Four workers each imported jsdom, React and the console for themselves
          // and took turns on two cores: the web files alone took 112-119 s of CPU on four workers (61-64 s), 87 on
          // two (55 s) and 73-74 on one (77-79 s). The other core meanwhile runs what starts beside the suite (lint,
          // the type-check, the builds), which would otherwise take it later.
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
