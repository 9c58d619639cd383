// Where the browser tests and the web benches find a Chromium, and how `npm test` gets one on a fresh machine.
// playwright-core and puppeteer-core never download a browser here: they drive one the machine has.
import { accessSync, constants } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Debian's and Ubuntu's Chromium, Google Chrome on Linux and macOS, in that order. */
const BROWSERS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/**
 * Debian's headless shell of Chromium: Chromium's own build for headless runs (the one Playwright drives when it
 * brings its browsers), the same engine without the desktop browser's interface, whose WebUI renderer the full
 * browser starts even headless. The browser tests took a fifth less CPU on it here (e2e/README.md). It shows no
 * system notifications and answers a notification permission request with "denied": the tests of those ask for
 * the full browser (`findChromium({ full: true })`).
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/** The one command that gives a Debian or Ubuntu machine the browsers the tests use. */
export const INSTALL_CHROMIUM = 'sudo apt-get install chromium-headless-shell chromium fonts-liberation';

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * CHROMIUM_PATH when set (it must then be there), else the headless shell when the machine has it, else the first
 * browser of BROWSERS it has. With `full`, a full browser: CHROMIUM_FULL_PATH when set, else CHROMIUM_PATH unless it
 * is a headless shell, else BROWSERS. Undefined when there is none.
 * @param {{ full?: boolean }} [options]
 * @returns {string | undefined}
 */
export function findChromium({ full = false } = {}) {
  const { CHROMIUM_PATH: named, CHROMIUM_FULL_PATH: namedFull } = process.env;
  if (!full) return named ? (executable(named) ? named : undefined) : [HEADLESS_SHELL, ...BROWSERS].find(executable);
  if (namedFull) return executable(namedFull) ? namedFull : undefined;
  return [...(named && !named.includes('headless') ? [named] : []), ...BROWSERS].find(executable);
}

/**
 * The headless shell and a full Chromium, the ones of Debian's packages installed as .ci/run does when the machine
 * lacks either and apt-get can run without a password (as root, or with sudo that asks none); the headless shell's
 * path (or the full browser's), undefined when there is none.
 * @returns {string | undefined}
 */
export function findOrInstallChromium() {
  const missing = [
    ...(process.env.CHROMIUM_PATH || executable(HEADLESS_SHELL) ? [] : ['chromium-headless-shell']),
    ...(findChromium({ full: true }) || process.env.CHROMIUM_FULL_PATH ? [] : ['chromium']),
  ];
  if (missing.length === 0 || !executable('/usr/bin/apt-get')) return findChromium();
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0) return findChromium();
  console.log(`Installing Debian's ${missing.join(' and ')} for the browser tests.`);
  const run = (args) => spawnSync(asRoot ? args[0] : 'sudo', asRoot ? args.slice(1) : ['-n', ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing, 'fonts-liberation']);
  return findChromium();
}

// `node scripts/chromium.mjs` (.ci/run, before `npm ci`): the same install, and the browser it found, or the command
// that gives one (exit 1). It needs nothing but Node.js.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const found = findOrInstallChromium();
  console.log(found ? `Browser tests: ${found}` : `No Chromium or Chrome on this machine: ${INSTALL_CHROMIUM}`);
  process.exit(found ? 0 : 1);
}
