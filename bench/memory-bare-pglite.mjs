// A process that only opens a PGlite data folder and reads every table of it, then prints its memory as JSON:
// the floor under the server's figures in bench/memory.ts. Argument 2: the data folder; argument 3: shared_buffers
// (PostgreSQL's default, 128MB, when absent).
import { PGlite } from '@electric-sql/pglite';
import { readFileSync } from 'node:fs';

const [dataDir, sharedBuffers] = process.argv.slice(2);
const startParams = sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`] : undefined;
const db = new PGlite({ dataDir, ...(startParams ? { startParams } : {}) });
await db.waitReady;
const tables = await db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
for (const { tablename } of tables.rows) await db.query(`SELECT * FROM "${tablename}"`);
globalThis.gc?.();
const status = readFileSync('/proc/self/status', 'utf8');
const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
const usage = process.memoryUsage();
await db.close();
process.stdout.write(JSON.stringify({ rss: kb('VmRSS'), peak: kb('VmHWM'), heapUsed: usage.heapUsed, external: usage.external }));
