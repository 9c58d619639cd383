/**
 * Vitest's global setup of the node projects: the server's build that the process tests start (built-server.ts).
 * Once per run: each project loads this file afresh, so the flag is the environment's.
 */
import { buildServer } from './built-server.ts';

export default function setup(): void {
  if (process.env.UVD_TEST_SERVER_BUILT) return;
  buildServer();
  process.env.UVD_TEST_SERVER_BUILT = '1';
}
