import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/client.ts';
import { organizations, robots } from '../db/schema.ts';
import { demoSeedNeeded } from './demo-seed.ts';
import { runSeedProcess } from './seed-process.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('the demo seed in a process of its own', () => {
  it('makes a new data folder, seeds it, and seeds nothing the second time', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uvd-seed-process-'));
    folders.push(dataDir);
    const seeded = await runSeedProcess(dataDir, 'disinfection');
    expect(seeded?.map((summary) => summary.organization)).toEqual(expect.arrayContaining(['demo']));
    expect(seeded?.every((summary) => summary.robots > 0 && summary.jobs > 0)).toBe(true);

    const database = await openDatabase({ dataDir });
    try {
      const [organizationRows] = await database.db.select({ n: count() }).from(organizations);
      expect(organizationRows?.n).toBe(seeded?.length);
      expect(await demoSeedNeeded(database.db, 'disinfection')).toBe(false);
      // The logistics variant still lacks its delivery robots on a folder seeded for disinfection.
      expect(await demoSeedNeeded(database.db, 'logistics')).toBe(true);
      const [robotRows] = await database.db.select({ n: count() }).from(robots);
      expect(robotRows?.n).toBe(seeded?.reduce((sum, summary) => sum + summary.robots, 0));
    } finally {
      await database.close();
    }

    expect(await runSeedProcess(dataDir, 'disinfection')).toBeNull();
  }, 240_000);
});
