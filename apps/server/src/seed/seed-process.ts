/**
 * A new embedded (PGlite) data folder made, migrated and seeded with the demo in a Node process of its own
 * (server.ts). PGlite's initdb and the demo's history (one large transaction) leave the process that runs them
 * holding memory it never gives back: a WebAssembly heap grown to about 570 MB, external buffers, garbage in the
 * JavaScript heap and fragments in malloc's arenas (with the memory settings of scripts/server-memory.mjs, a first
 * start held 286 MB after 60 s of the demo against 220–245 MB on a start on the same data; bench/README.md
 * "bench:memory"). A process of its own gives all of it back when it exits. The server holds the folder's lock
 * meanwhile and has no PGlite open on it; this process opens the folder without the lock.
 *
 * `runSeedProcess` starts this file with the server's own Node flags (tsx's loader under `npm start`, the built
 * JavaScript under `npm run serve`); run as the entry with the folder and the variant, it prints what it seeded as
 * the last line of its output, JSON. A new folder without the demo (SEED_DEMO=false) is made by the server itself:
 * this process would add seconds to every such start (the tests start many).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { openDatabase } from '../db/client.ts';
import { seedDemoIfEmpty, type SeedOptions, type SeedSummary } from './demo-seed.ts';

const SELF = fileURLToPath(import.meta.url);

const SeedSummaries = z
  .array(z.object({ organization: z.string(), buildings: z.number(), floors: z.number(), rooms: z.number(), robots: z.number(), users: z.number(), jobs: z.number(), logs: z.number() }))
  .nullable();

/**
 * Makes and migrates `dataDir` if it is new and seeds the demo into it, in a child process; resolves with what it
 * seeded (null: nothing was missing).
 */
export async function runSeedProcess(dataDir: string, variant: SeedOptions['variant']): Promise<SeedSummary[] | null> {
  // The parent's flags minus a debugger's, whose port the child could not take as well; from the sources, tsx's
  // loader when the parent runs without it (vitest transforms its own modules).
  const flags = process.execArgv.filter((flag) => !/^--inspect/.test(flag));
  if (SELF.endsWith('.ts') && !flags.some((flag) => flag.includes('tsx'))) flags.push('--import', 'tsx');
  const child = spawn(process.execPath, [...flags, SELF, dataDir, variant ?? 'disinfection'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    // 'close' comes after the output is read to its end ('exit' may come before).
    child.once('close', (exitCode: number | null) => { resolve(exitCode); });
  });
  if (code !== 0) throw new Error(`the demo seed process exited with ${String(code)}`);
  const last = output.trim().split('\n').at(-1) ?? '';
  return SeedSummaries.parse(JSON.parse(last));
}

const Arguments = z.tuple([z.string().min(1), z.enum(['disinfection', 'logistics'])]);

async function main(): Promise<void> {
  const [dataDir, variant] = Arguments.parse(process.argv.slice(2));
  const database = await openDatabase({ dataDir });
  try {
    const seeded = await seedDemoIfEmpty(database, { variant });
    process.stdout.write(`${JSON.stringify(seeded)}\n`);
  } finally {
    await database.close();
  }
}

// Run as a program, not imported.
if (process.argv[1] === SELF) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
