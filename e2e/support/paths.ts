import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Everything a run leaves behind (screenshots, the server's log); gitignored. */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'e2e-artifacts');
export const SCREENSHOTS_DIR = path.join(ARTIFACTS_DIR, 'screenshots');
/**
 * The build the server serves in a run: WEB_DIST, else a build of its own in e2e-artifacts, so a developer's
 * `npm run build` or dev server rewriting apps/web/dist cannot pull files from under a running test.
 */
export const WEB_DIST = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(ARTIFACTS_DIR, 'web-dist');
/** Debian's Chromium; playwright-core never downloads a browser here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
