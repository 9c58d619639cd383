/**
 * `cap sync` of the committed native projects, as after a clean clone and the web build: in a temporary copy of
 * the shell (the repository stays untouched), with a stand-in web build and a local stand-in of the console server
 * for the runtime-config hook. The iOS half runs too: its Swift Package Manager project needs no CocoaPods or Xcode
 * for a sync, only for a build.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RuntimeConfig } from '@uvd/contracts';

const MOBILE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(MOBILE, '../..');
const CAPACITOR_CLI = path.join(REPO, 'node_modules/@capacitor/cli/bin/capacitor');
/** The hook apps/mobile/package.json runs after every `cap copy` (README.md). */
const RUNTIME_CONFIG_HOOK = 'node --import tsx scripts/write-runtime-config.ts';

/** What a sync generates, or a local build leaves; none of it is tracked (android/.gitignore, ios/.gitignore). */
const UNTRACKED = new Set(['node_modules', 'build', '.gradle', '.idea', 'public', 'local.properties', 'DerivedData', 'xcuserdata']);
const GENERATED = [
  'android/app/src/main/assets',
  'android/app/src/main/res/xml/config.xml',
  'android/capacitor-cordova-android-plugins',
  'ios/App/App/capacitor.config.json',
  'ios/App/App/config.xml',
  'ios/capacitor-cordova-ios-plugins',
];

/** Every file under a folder with its size and modification time, to show the repository's copy is not written. */
async function fingerprint(root: string, dir = root): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const lines: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.name === 'node_modules') continue;
    if (entry.isDirectory()) lines.push(...(await fingerprint(root, full)));
    else {
      const info = await stat(full);
      lines.push(`${path.relative(root, full)} ${info.size} ${info.mtimeMs}`);
    }
  }
  return lines.sort();
}

const run = (args: string[], cwd: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CAPACITOR_CLI, ...args], { cwd, env: { ...process.env, CI: '1', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, output });
    });
  });

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
const json = async (file: string): Promise<unknown> => JSON.parse(await readFile(file, 'utf8'));
const PluginList = z.array(z.object({ pkg: z.string(), classpath: z.string() }));
const CapacitorJson = z.object({ appId: z.string(), appName: z.string(), plugins: z.object({ PushNotifications: z.object({ presentationOptions: z.array(z.string()) }) }) });

describe('cap sync of the mobile shell in a temporary copy, with a stand-in web build and console server', { timeout: 120_000 }, () => {
  let temp: string;
  let consoleServer: Server;
  let consoleUrl: string;
  let repositoryBefore: string[];

  const served: RuntimeConfig = {
    variant: 'disinfection',
    clientId: 'uvd-console',
    identity: '/idp',
    backends: { jobs: '', action: '', command: '', rooms: '', logs: '', logistics: '', robots: '', users: '', notifications: '' },
    tokenRefreshMs: 890_000,
    vapidPublicKey: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
  };

  /** A fresh copy of the shell as the repository has it, beside a stand-in of `npm run build`'s output. */
  const copyShell = async (name: string) => {
    const root = path.join(temp, name);
    const mobile = path.join(root, 'apps/mobile');
    await cp(MOBILE, mobile, { recursive: true, filter: (source) => !UNTRACKED.has(path.basename(source)) });
    for (const generated of GENERATED) await rm(path.join(mobile, generated), { recursive: true, force: true });
    // Until apps/mobile/package.json names the hook itself, the copy gets it as README.md asks for.
    const manifest = z.object({ scripts: z.record(z.string(), z.string()).default({}) }).loose().parse(await json(path.join(mobile, 'package.json')));
    manifest.scripts['capacitor:copy:after'] ??= RUNTIME_CONFIG_HOOK;
    await writeFile(path.join(mobile, 'package.json'), JSON.stringify(manifest, null, 2));
    await mkdir(path.join(root, 'apps/web/dist/assets'), { recursive: true });
    await writeFile(path.join(root, 'apps/web/dist/index.html'), '<!doctype html><title>UVD Console</title><script type="module" src="/assets/index-stand-in.js"></script>');
    await writeFile(path.join(root, 'apps/web/dist/assets/index-stand-in.js'), 'console.log("stand-in build");');
    // The workspace's installed packages, as `npm ci` leaves them at the repository's root.
    await symlink(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    return mobile;
  };

  beforeAll(async () => {
    repositoryBefore = await fingerprint(MOBILE);
    temp = await mkdtemp(path.join(tmpdir(), 'uvd-cap-sync-'));
    consoleServer = createServer((request, response) => {
      const origin = `http://${request.headers.host ?? ''}`;
      const api = `${origin}/api`;
      const config = { ...served, backends: Object.fromEntries(Object.keys(served.backends).map((name) => [name, api])) };
      if (request.url === '/config.json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(config));
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => consoleServer.listen(0, '127.0.0.1', resolve));
    const address = consoleServer.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    consoleUrl = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      consoleServer.close(() => {
        resolve();
      });
    });
    await rm(temp, { recursive: true, force: true });
    expect(await fingerprint(MOBILE)).toEqual(repositoryBefore);
  });

  it('copies the web build into both native projects, registers push and preferences, and bundles the runtime config', async () => {
    const mobile = await copyShell('with-console');
    const { code, output } = await run(['sync'], mobile, { CONSOLE_URL: consoleUrl });
    expect(output).not.toMatch(/\[error\]/);
    expect(code).toBe(0);

    const android = path.join(mobile, 'android');
    const androidWeb = path.join(android, 'app/src/main/assets/public');
    expect(await readFile(path.join(androidWeb, 'index.html'), 'utf8')).toContain('index-stand-in.js');
    expect(await exists(path.join(androidWeb, 'assets/index-stand-in.js'))).toBe(true);
    const plugins = PluginList.parse(await json(path.join(android, 'app/src/main/assets/capacitor.plugins.json')));
    expect(plugins.map((plugin) => plugin.pkg).sort()).toEqual(['@capacitor/preferences', '@capacitor/push-notifications']);
    const capacitorJson = CapacitorJson.parse(await json(path.join(android, 'app/src/main/assets/capacitor.config.json')));
    expect(capacitorJson).toMatchObject({ appId: 'fi.uvd.console', plugins: { PushNotifications: { presentationOptions: ['badge', 'sound', 'alert'] } } });

    // Gradle includes each plugin's Android library from where npm installed it.
    const settings = await readFile(path.join(android, 'capacitor.settings.gradle'), 'utf8');
    const projectDirs = [...settings.matchAll(/project\(':([\w-]+)'\)\.projectDir = new File\('([^']+)'\)/g)].map(([, name = '', dir = '']) => ({ name, dir }));
    expect(projectDirs.map((project) => project.name).sort()).toEqual(['capacitor-android', 'capacitor-preferences', 'capacitor-push-notifications']);
    for (const project of projectDirs) expect(await exists(path.join(android, project.dir, 'build.gradle'))).toBe(true);
    const appGradle = await readFile(path.join(android, 'app/capacitor.build.gradle'), 'utf8');
    expect(appGradle).toContain("implementation project(':capacitor-push-notifications')");
    expect(appGradle).toContain("implementation project(':capacitor-preferences')");

    const iosWeb = path.join(mobile, 'ios/App/App/public');
    expect(await readFile(path.join(iosWeb, 'index.html'), 'utf8')).toContain('index-stand-in.js');
    const packageSwift = await readFile(path.join(mobile, 'ios/App/CapApp-SPM/Package.swift'), 'utf8');
    const packagePaths = [...packageSwift.matchAll(/\.package\(name: "(\w+)", path: "([^"]+)"\)/g)].map(([, name = '', dir = '']) => ({ name, dir }));
    expect(packagePaths.map((pkg) => pkg.name).sort()).toEqual(['CapacitorPreferences', 'CapacitorPushNotifications']);
    for (const pkg of packagePaths) expect(await exists(path.join(mobile, 'ios/App/CapApp-SPM', pkg.dir, 'Package.swift'))).toBe(true);

    // The console in the app finds the server through the bundled /config.json, every address absolute.
    for (const webDir of [androidWeb, iosWeb]) {
      const config = RuntimeConfig.parse(await json(path.join(webDir, 'config.json')));
      expect(config.identity).toBe(`${consoleUrl}/idp`);
      expect(Object.values(config.backends)).toEqual(Array.from({ length: 9 }, () => `${consoleUrl}/api`));
      expect(config.clientId).toBe('uvd-console');
    }
    // The stand-in build is untouched: the config lives only in the native copies.
    expect(await exists(path.join(mobile, '../web/dist/config.json'))).toBe(false);
  });

  it('still syncs without CONSOLE_URL, saying the app gets no server address', async () => {
    const mobile = await copyShell('without-console');
    const { code, output } = await run(['sync', 'android'], mobile, { CONSOLE_URL: '' });
    expect(code).toBe(0);
    expect(output).toContain('CONSOLE_URL is not set');
    expect(await exists(path.join(mobile, 'android/app/src/main/assets/public/index.html'))).toBe(true);
    expect(await exists(path.join(mobile, 'android/app/src/main/assets/public/config.json'))).toBe(false);
  });

  it('reports an error and bundles no config when CONSOLE_URL names no console server', async () => {
    const mobile = await copyShell('wrong-console');
    const { output } = await run(['copy', 'android'], mobile, { CONSOLE_URL: `${consoleUrl}/not-here` });
    // Capacitor's CLI logs a failed hook as an [error] line but still exits 0 (README.md: check before a release).
    expect(output).toMatch(/not-here\/config\.json answered 404/);
    expect(output).toMatch(/\[error\].*capacitor:copy:after hook on android failed/);
    expect(await exists(path.join(mobile, 'android/app/src/main/assets/public/config.json'))).toBe(false);
  });
});
