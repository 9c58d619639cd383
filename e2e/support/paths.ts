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
 * The machine's Chromium or Chrome (CHROMIUM_PATH, else Debian's headless shell, else Debian's Chromium, else Google
 * Chrome: scripts/chromium.mjs), and a full browser for the tests of system notifications (CHROMIUM_FULL_PATH, else
 * Debian's Chromium, else Google Chrome); playwright-core never downloads a browser here. Undefined when the machine
 * has none.
 */
const CHROMIUM_PATH: string | undefined = findChromium();
const CHROMIUM_FULL_PATH: string | undefined = findChromium({ full: true });

/**
 * The Chromium to drive (`full`: a full browser, which shows system notifications and may grant their permission,
 * where the headless shell denies it), or an error that names the one command that gives the machine one.
 */
export function chromiumPath({ full = false }: { full?: boolean } = {}): string {
  const found = full ? CHROMIUM_FULL_PATH : CHROMIUM_PATH;
  if (found) return found;
  const named = full ? process.env.CHROMIUM_FULL_PATH : process.env.CHROMIUM_PATH;
  const variable = full ? 'CHROMIUM_FULL_PATH' : 'CHROMIUM_PATH';
  throw new Error(
    `No ${full ? 'full ' : ''}Chromium${named ? ` at ${variable}=${named}` : ''}: ${INSTALL_CHROMIUM}, or set ${variable} to a Chromium or Chrome.`,
  );
}
