import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The browser tests: one built SPA, and one real server per worker for the whole run (support/global-setup.ts). A
// browser test mostly waits (for the robot, the stream, the page), so two workers, each with its Chromium and its
// server, take about half the time of one on two cores. E2E_WORKERS=1 starts one server, e.g. for one file.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['e2e/tests/**/*.test.ts'],
    globalSetup: ['e2e/support/global-setup.ts'],
    maxWorkers: Number(process.env.E2E_WORKERS ?? 2),
    testTimeout: 60_000,
    // Global setup builds the SPA (tens of seconds) before any test file starts.
    hookTimeout: 180_000,
    // Screens load data and language chunks: web-first assertions (expect.poll) wait up to 10 s.
    expect: { poll: { timeout: 10_000 } },
  },
});
