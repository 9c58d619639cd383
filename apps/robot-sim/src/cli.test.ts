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
