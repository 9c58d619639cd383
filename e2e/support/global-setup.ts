/**
 * Once per browser-test run: build the SPA, start the real server on it (support/server.ts) and hand its address
 * to the tests. E2E_BASE_URL runs the tests against a server that is already up instead; E2E_SKIP_BUILD=true
 * reuses the last build.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { OWN_ROBOTS, seedOwnRobots } from './own-robots.ts';
import { chromiumPath, REPO_ROOT, SCREENSHOTS_DIR } from './paths.ts';
import { buildWeb, startConsoleServer, waitForHealth, type ConsoleServer } from './server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One server per worker: the files of worker k (VITEST_POOL_ID k) use the k-th. */
    baseUrls: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Fail at once, naming the fix, on a machine without them.
  chromiumPath();
  chromiumPath({ full: true });
  await mkdir(SCREENSHOTS_DIR, { recursive: true });

  const external = process.env.E2E_BASE_URL;
  if (external) {
    await waitForHealth(external);
    project.provide('baseUrls', [external.replace(/\/$/, '')]);
    return async () => {};
  }

  // npm test builds it beside the unit step (support/build-web.ts) and says so.
  if (process.env.E2E_SKIP_BUILD === 'true') console.log('e2e: E2E_SKIP_BUILD=true, using the existing web build');
  else buildWeb();

  // One server per worker, so that files run side by side each on a server of their own, one after the other on it
  // as before: a file sees no other file's robots at work. Most of a browser test is waiting (for the robot, the
  // stream, the browser), so two workers take about half the time on two cores.
  // The robots the tests play themselves (own-robots.ts) are seeded beside the demo's and left out of its fleet. One
  // data folder is seeded and each server gets a copy: seeding three in this one process took 6.5 s, one 3.9 s.
  const seeded = await mkdtemp(path.join(tmpdir(), 'uvd-e2e-seeded-'));
  let servers: ConsoleServer[];
  try {
    await seedOwnRobots(seeded);
    servers = await Promise.all(
      Array.from({ length: project.config.maxWorkers }, (_, index) =>
        startConsoleServer({
          logName: `server-${String(index + 1)}.log`,
          prepare: (dataDir) => cp(seeded, dataDir, { recursive: true }),
          demoFleet: { timeFactor: 30, skipRobots: OWN_ROBOTS.map((robot) => robot.name) },
        }),
      ),
    );
  } finally {
    await rm(seeded, { recursive: true, force: true });
  }
  for (const server of servers) console.log(`e2e: server up at ${server.baseUrl} (log: ${path.relative(REPO_ROOT, server.logFile)})`);
  project.provide('baseUrls', servers.map((server) => server.baseUrl));
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}
