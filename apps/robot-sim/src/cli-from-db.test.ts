/**
 * `npm run sim -- --from-db … --org demo` against a scratch PostgreSQL database seeded with the demo
 * organizations by the server's own seed, robots connecting to a broker started here. Needs
 * TEST_DATABASE_URL (the CLI reads PostgreSQL only); skipped otherwise.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The server's scratch database and demo seed: the CLI must read the schema the server writes.
import { createScratchDatabase, type ScratchDatabase } from '../../server/src/db/scratch-database.ts';
import { seedDemoIfEmpty } from '../../server/src/seed/demo-seed.ts';
import { startTestBroker, type TestBroker } from './testing/test-broker.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!serverUrl)('npm run sim -- --from-db … --org demo (needs TEST_DATABASE_URL)', () => {
  let scratch: ScratchDatabase;
  let broker: TestBroker;

  beforeAll(async () => {
    scratch = await createScratchDatabase(serverUrl, 'uvd_sim_cli');
    await seedDemoIfEmpty(scratch.database);
    broker = await startTestBroker();
  });
  afterAll(async () => {
    await broker.close();
    await scratch.drop();
  });

  it("plays the demo organization's robots that stand on a floor, each with a fresh MQTT password", async () => {
    const url = scratch.url ?? '';
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const before = await client.query<{ serial_number: string; mqtt_password_hash: string | null }>(
      "SELECT serial_number, mqtt_password_hash FROM robots WHERE org_id = 'demo' AND floor_id IS NOT NULL ORDER BY serial_number",
    );
    expect(before.rows.length).toBeGreaterThan(0);

    const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--broker', broker.url, '--from-db', url, '--org', 'demo', '--time-factor', '10'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const connected = new Promise<number>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /(\d+) simulated robots connected/.exec(output);
        if (match?.[1]) resolve(Number(match[1]));
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then(() => {
        reject(new Error(`the CLI exited: ${output}`));
      });
    });
    connected.catch(() => undefined); // it also exits when stopped below, after the answer counted
    try {
      expect(await connected).toBe(before.rows.length);
      expect(output).not.toContain('Usage');
      const after = await client.query<{ serial_number: string; mqtt_password_hash: string | null }>(
        "SELECT serial_number, mqtt_password_hash FROM robots WHERE org_id = 'demo' AND floor_id IS NOT NULL ORDER BY serial_number",
      );
      after.rows.forEach((row, index) => {
        expect(row.mqtt_password_hash).toMatch(/^\$argon2id\$/);
        expect(row.mqtt_password_hash).not.toBe(before.rows[index]?.mqtt_password_hash);
      });
    } finally {
      child.kill('SIGTERM');
      await exited;
      await client.end();
    }
  }, 60_000);
});
