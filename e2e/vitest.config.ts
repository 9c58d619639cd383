import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take a minute or more, longest first. Vitest runs the longest files first once it has timed them,
 * but a clean clone has no timings, and then it runs the largest files first: the shift view's files, short and
 * among the longest, ran last while the other workers had nothing left (a run of 338 s whose tests took 869 s on
 * three workers). These start first; the others follow in vitest's own order.
 */
const LONGEST = ['screens', 'messages-and-toasts', 'deliveries', 'navigation-and-sessions', 'admin-journey', 'shift-view-desktop', 'shift-view-phone'];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}.test.ts`));
      return index === -1 ? LONGEST.length : index;
    };
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// The browser tests: one built SPA, and one real server per worker for the whole run (support/global-setup.ts). One
// browser test alone mostly waits (for the robot, the stream, the page): with three workers, each with its Chromium
// and its server, two cores were 77 % busy (263 s, 406 s of CPU). Four took 234 s; on a slower machine they kept both
// cores 96 % busy, and six took longer (e2e/README.md). E2E_WORKERS=1 starts one server, e.g. for one file.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['e2e/tests/**/*.test.ts'],
    globalSetup: ['e2e/support/global-setup.ts'],
    maxWorkers: Number(process.env.E2E_WORKERS ?? 4),
    sequence: { sequencer: LongestFirst },
    // A worker's files share its modules, as the unit files do: a file no longer imports playwright-core, axe and the
    // support modules anew (their imports took 47.6 s of the step, 12.9 s shared; the step 305 -> 278 s of CPU).
    // What a file changes of a shared module it puts back (`useServer(undefined)` after pointing elsewhere).
    isolate: false,
    testTimeout: 60_000,
    // Global setup builds the SPA (tens of seconds) before any test file starts.
    hookTimeout: 180_000,
    // Screens load data and language chunks: web-first assertions (expect.poll) wait up to 10 s.
    expect: { poll: { timeout: 10_000 } },
  },
});
