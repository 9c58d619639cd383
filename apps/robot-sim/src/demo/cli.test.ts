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
});
