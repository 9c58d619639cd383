import { describe, expect, it } from 'vitest';
import { parseDemoSettings } from './cli.ts';

describe('demo settings', () => {
  it('play every robot unless told otherwise', () => {
    expect(parseDemoSettings([], {}).skipRobots).toEqual([]);
    expect(parseDemoSettings([], { DEMO_SKIP_ROBOTS: '' }).skipRobots).toEqual([]);
  });

  it('read the robots to leave out from --skip-robots or DEMO_SKIP_ROBOTS, names separated by commas', () => {
    expect(parseDemoSettings([], { DEMO_SKIP_ROBOTS: 'UVD-5, UVD-6 ,' }).skipRobots).toEqual(['UVD-5', 'UVD-6']);
    // The flag wins over the environment, as every other setting's does.
    expect(parseDemoSettings(['--skip-robots', 'UVD-1'], { DEMO_SKIP_ROBOTS: 'UVD-5' }).skipRobots).toEqual(['UVD-1']);
  });

  it("pace the lamp as the server's demo lamp does unless told otherwise (SIM_IRRADIANCE or --irradiance)", () => {
    expect(parseDemoSettings([], {}).irradiance).toBeCloseTo(1 / 6, 9);
    expect(parseDemoSettings([], { SIM_IRRADIANCE: '0.5' }).irradiance).toBe(0.5);
    expect(parseDemoSettings(['--irradiance', '0.25'], { SIM_IRRADIANCE: '0.5' }).irradiance).toBe(0.25);
    expect(() => parseDemoSettings([], { SIM_IRRADIANCE: '0' })).toThrow(/SIM_IRRADIANCE/);
  });
});
