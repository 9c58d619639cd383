/**
 * The `capacitor:copy:after` hook (package.json): after `cap copy` / `cap sync` has put the web build into a
 * native project, this writes the `config.json` the console reads at start-up beside it. In the app the console's
 * origin is the app itself (https://localhost, capacitor://localhost), so `/config.json` comes from the bundled
 * assets: it is the console server's own /config.json, fetched from CONSOLE_URL at build time, with every address
 * absolute. Without CONSOLE_URL nothing is written and the app starts on the console's configuration error.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { getRuntimeConfig, RuntimeConfig } from '@uvd/contracts';

/** Where Capacitor 7 copies the web build inside each native project. */
export const NATIVE_WEB_DIRS: Record<string, string> = {
  android: 'android/app/src/main/assets/public',
  ios: 'ios/App/App/public',
};

const FETCH_TIMEOUT_MS = 15_000;
const ConsoleUrl = z.url({ protocol: /^https?$/, error: 'CONSOLE_URL must be the http(s) address of the console server' });

/** An address the server gave relative to itself means the same place seen from the app: made absolute. */
const absolute = (address: string, base: URL) => new URL(address, base).href.replace(/\/$/, '');

export async function fetchRuntimeConfig(consoleUrl: string): Promise<RuntimeConfig> {
  const base = new URL(`${ConsoleUrl.parse(consoleUrl).replace(/\/$/, '')}/`);
  const url = new URL(getRuntimeConfig.path.slice(1), base);
  const reply = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!reply.ok) throw new Error(`${url.href} answered ${reply.status}`);
  const config = RuntimeConfig.parse(await reply.json());
  const backends = Object.fromEntries(Object.entries(config.backends).map(([name, address]) => [name, absolute(address, base)]));
  return { ...config, identity: absolute(config.identity, base), backends: RuntimeConfig.shape.backends.parse(backends) };
}

export async function writeRuntimeConfig(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const platform = env.CAPACITOR_PLATFORM_NAME ?? '';
  const webDir = NATIVE_WEB_DIRS[platform];
  if (!webDir) return undefined;
  const consoleUrl = env.CONSOLE_URL?.trim();
  if (!consoleUrl) {
    console.warn(`[runtime-config] CONSOLE_URL is not set: the ${platform} app gets no config.json and cannot reach a server.`);
    return undefined;
  }
  if (!consoleUrl.startsWith('https:')) {
    // Android's WebView (mixed content) and iOS's App Transport Security block plain http from the app's origin.
    console.warn(`[runtime-config] ${consoleUrl} is not https: the app's requests to it will be blocked.`);
  }
  const config = await fetchRuntimeConfig(consoleUrl);
  const target = path.join(env.CAPACITOR_ROOT_DIR ?? process.cwd(), webDir, 'config.json');
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, `${JSON.stringify(config, null, 2)}\n`);
  console.log(`[runtime-config] ${platform}: ${path.relative(process.cwd(), target)} from ${consoleUrl}`);
  return target;
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(entry).href) {
  writeRuntimeConfig(process.env).catch((error: unknown) => {
    console.error(`[runtime-config] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
