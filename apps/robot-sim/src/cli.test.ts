import { describe, expect, it } from 'vitest';
import { generatedRobots, parseCliArgs } from './cli.ts';

describe('npm run sim', () => {
  it('reads its options with defaults and names what is wrong', () => {
    const options = parseCliArgs(['--broker', 'mqtt://127.0.0.1:1883', '--robots', '2', '--time-factor', '10']);
    expect(options).toMatchObject({ broker: 'mqtt://127.0.0.1:1883', robots: 2, timeFactor: 10, password: 'sim', manufacturer: 'uvd', faultRate: 0 });
    expect(() => parseCliArgs(['--robots', '2'])).toThrow(/--broker/);
    expect(() => parseCliArgs(['--broker', 'x', '--robots', '0'])).toThrow(/robots/);
    expect(() => parseCliArgs(['--server', 'http://127.0.0.1:8080', '--admin', 'admin', '--admin-password', 'p'])).toThrow(/--org/);
    expect(() => parseCliArgs(['--server', 'http://127.0.0.1:8080', '--org', 'demo', '--admin-password', 'p'])).toThrow(/--admin/);
    expect(() => parseCliArgs(['--server', 'http://127.0.0.1:8080', '--org', 'demo', '--admin', 'admin'])).toThrow(/SIM_ADMIN_PASSWORD/);
    expect(() => parseCliArgs(['--server', 'not a url', '--org', 'demo', '--admin', 'a', '--admin-password', 'p'])).toThrow(/--server/);
  });

  it('plays registered robots through the server: --server, --org and an admin, the password also from SIM_ADMIN_PASSWORD', () => {
    const options = parseCliArgs(['--server', 'http://127.0.0.1:8080', '--org', 'demo', '--admin', 'admin'], { SIM_ADMIN_PASSWORD: 'admin-demo-1' });
    expect(options).toMatchObject({ server: 'http://127.0.0.1:8080', org: 'demo', admin: 'admin', adminPassword: 'admin-demo-1' });
    expect(options.broker).toBeUndefined();
  });

  it('takes an organization id as the server names it: the realm slug, such as demo', () => {
    expect(parseCliArgs(['--broker', 'x', '--org', 'org-1f2e_3']).org).toBe('org-1f2e_3');
    // Realm names are lowercase (the server compares them as written); anything else cannot name an organization.
    for (const bad of ['Demo', '-demo', 'de mo', "demo'; drop table robots; --", '']) {
      expect(() => parseCliArgs(['--broker', 'x', '--org', bad]), bad).toThrow(/--org/);
    }
  });

  it('generates robots sim-1..N in a row on one floor', () => {
    const options = parseCliArgs(['--broker', 'x', '--robots', '2', '--password', "it's", '--map', 'floor-1']);
    const robots = generatedRobots(options);
    expect(robots.map((r) => [r.serialNumber, r.mapId, r.password, r.home.x])).toEqual([
      ['sim-1', 'floor-1', "it's", 0],
      ['sim-2', 'floor-1', "it's", 1],
    ]);
    expect(robots.every((r) => r.kind === 'disinfection')).toBe(true);
    expect(generatedRobots(parseCliArgs(['--broker', 'x', '--kind', 'delivery'])).map((r) => r.kind)).toEqual(['delivery', 'delivery', 'delivery']);
    expect(() => parseCliArgs(['--broker', 'x', '--kind', 'forklift'])).toThrow(/kind/);
  });
});
