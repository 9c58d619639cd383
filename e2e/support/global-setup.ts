/**
 * Once per browser-test run: build the SPA, start the real server on it (support/server.ts) and hand its address
 * to the tests. E2E_BASE_URL runs the tests against a server that is already up instead; E2E_SKIP_BUILD=true
 * reuses the last build.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { OWN_ROBOTS, seedOwnRobots } from './own-robots.ts';
import { chromiumPath, REPO_ROOT, SCREENSHOTS_DIR } from './paths.ts';
import { buildWeb, startConsoleServer, waitForHealth } from './server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  chromiumPath(); // fails at once, naming the fix, on a machine without one
  await mkdir(SCREENSHOTS_DIR, { recursive: true });

  const external = process.env.E2E_BASE_URL;
  if (external) {
    await waitForHealth(external);
    project.provide('baseUrl', external.replace(/\/$/, ''));
    return async () => {};
  }

  if (process.env.E2E_SKIP_BUILD === 'true') console.log('e2e: E2E_SKIP_BUILD=true, using the existing web build');
  else buildWeb();

  // The robots the tests play themselves (own-robots.ts) are seeded beside the demo's and left out of its fleet.
  const server = await startConsoleServer({
    prepare: seedOwnRobots,
    demoFleet: { timeFactor: 30, skipRobots: OWN_ROBOTS.map((robot) => robot.name) },
  });
  console.log(`e2e: server up at ${server.baseUrl} (log: ${path.relative(REPO_ROOT, server.logFile)})`);
  project.provide('baseUrl', server.baseUrl);
  return () => server.stop();
}
