import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { findChromium, INSTALL_CHROMIUM } from '../../scripts/chromium.mjs';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Everything a run leaves behind (screenshots, the server's log); gitignored. */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'e2e-artifacts');
export const SCREENSHOTS_DIR = path.join(ARTIFACTS_DIR, 'screenshots');
/**
 * The build the server serves in a run: WEB_DIST, else a build of its own in e2e-artifacts, so a developer's
 * `npm run build` or dev server rewriting apps/web/dist cannot pull files from under a running test.
 */
export const WEB_DIST = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(ARTIFACTS_DIR, 'web-dist');
/**
 * The machine's Chromium or Chrome (CHROMIUM_PATH, else Debian's, else Google Chrome: scripts/chromium.mjs);
 * playwright-core never downloads a browser here. Undefined when the machine has none.
 */
const CHROMIUM_PATH: string | undefined = findChromium();

/** The Chromium to drive, or an error that names the one command that gives the machine one. */
export function chromiumPath(): string {
  if (CHROMIUM_PATH) return CHROMIUM_PATH;
  const named = process.env.CHROMIUM_PATH;
  throw new Error(`No Chromium${named ? ` at CHROMIUM_PATH=${named}` : ''}: ${INSTALL_CHROMIUM}, or set CHROMIUM_PATH to a Chromium or Chrome.`);
}
