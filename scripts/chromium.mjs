// Where the browser tests and the web benches find a Chromium, and how `npm test` gets one on a fresh machine.
// playwright-core and puppeteer-core never download a browser here: they drive one the machine has.
import { accessSync, constants } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** Debian's and Ubuntu's Chromium, Google Chrome on Linux and macOS, in that order. */
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** The one command that gives a Debian or Ubuntu machine the browser the tests use. */
export const INSTALL_CHROMIUM = 'sudo apt-get install chromium fonts-liberation';

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * CHROMIUM_PATH when set (it must then be there), else the first browser of CANDIDATES the machine has; undefined
 * when there is none.
 * @returns {string | undefined}
 */
export function findChromium() {
  const named = process.env.CHROMIUM_PATH;
  if (named) return executable(named) ? named : undefined;
  return CANDIDATES.find(executable);
}

/**
 * A Chromium, installed from Debian's packages as .ci/run does when the machine has none and apt-get can run
 * without a password (as root, or with sudo that asks none); undefined when that is not possible.
 * @returns {string | undefined}
 */
export function findOrInstallChromium() {
  const found = findChromium();
  if (found || process.env.CHROMIUM_PATH || !executable('/usr/bin/apt-get')) return found;
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0) return undefined;
  console.log("No Chromium on this machine: installing Debian's chromium for the browser tests.");
  const run = (args) => spawnSync(asRoot ? args[0] : 'sudo', asRoot ? args.slice(1) : ['-n', ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-liberation']);
  return findChromium();
}
