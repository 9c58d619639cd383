import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { verify } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { generatedRobots, parseCliArgs, registrationSql } from './cli.ts';

describe('npm run sim', () => {
  it('reads its options with defaults and names what is wrong', () => {
    const options = parseCliArgs(['--broker', 'mqtt://127.0.0.1:1883', '--robots', '2', '--time-factor', '10']);
    expect(options).toMatchObject({ broker: 'mqtt://127.0.0.1:1883', robots: 2, timeFactor: 10, password: 'sim', manufacturer: 'uvd', faultRate: 0 });
    expect(() => parseCliArgs(['--robots', '2'])).toThrow(/--broker/);
    expect(() => parseCliArgs(['--broker', 'x', '--robots', '0'])).toThrow(/robots/);
    expect(() => parseCliArgs(['--broker', 'x', '--from-db', 'postgres://db'])).toThrow(/--org/);
  });

  it('takes an organization id as the server names it: the realm slug, such as demo (issue #9, defect 12)', () => {
    const options = parseCliArgs(['--broker', 'mqtt://127.0.0.1:1884', '--from-db', 'postgres://db', '--org', 'demo']);
    expect(options).toMatchObject({ org: 'demo', fromDb: 'postgres://db' });
    expect(parseCliArgs(['--broker', 'x', '--org', 'org-1f2e_3']).org).toBe('org-1f2e_3');
    // Realm names are lowercase (the server compares them as written); anything else cannot name an organization.
    for (const bad of ['Demo', '-demo', 'de mo', "demo'; drop table robots; --", '']) {
      expect(() => parseCliArgs(['--broker', 'x', '--org', bad]), bad).toThrow(/--org/);
    }
  });

  it('gets past its options with --from-db … --org demo as a command (to the database, which is not there)', async () => {
    const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
    // Port 1 on loopback refuses at once: the run ends at the database, after the options were taken.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', cli, '--broker', 'mqtt://127.0.0.1:1', '--from-db', 'postgres://postgres@127.0.0.1:1/none', '--org', 'demo'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(output).not.toContain('Usage');
    expect(output).toContain('ECONNREFUSED');
    expect(code).toBe(1);
  }, 30_000);

  it('generates robots sim-1..N and the SQL that lets them in, with an argon2id hash of their password', async () => {
    const options = parseCliArgs(['--broker', 'x', '--robots', '2', '--password', "it's", '--map', 'floor-1']);
    const robots = generatedRobots(options);
    expect(robots.map((r) => [r.serialNumber, r.mapId])).toEqual([
      ['sim-1', 'floor-1'],
      ['sim-2', 'floor-1'],
    ]);
    const sql = await registrationSql(robots, '00000000-0000-4000-8000-000000000001');
    expect(sql).toContain("'sim-2', 'uvd', 'sim-2', 'floor-1'");
    const passwordHash = /'(\$argon2id\$[^']+)'/.exec(sql)?.[1] ?? '';
    expect(await verify(passwordHash, "it's")).toBe(true);
  });
});
