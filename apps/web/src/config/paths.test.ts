import { describe, expect, it } from 'vitest';
import { paths } from './paths.ts';

describe('route map (behaviour §2)', () => {
  it('builds the links behaviour §2 describes', () => {
    expect(paths.jobs.getHref({ robot: 'r-1' })).toBe('/jobs?robot=r-1');
    expect(paths.jobs.getHref()).toBe('/jobs');
    expect(paths.job.getHref('j 1')).toBe('/job/j%201');
    expect(paths.map.getHref({ job: 'j', robot: 'r', show_trajectory: true })).toBe('/map?job=j&robot=r&show_trajectory=true');
    expect(paths.map.getHref({ show_trajectory: false })).toBe('/map?show_trajectory=false');
    expect(paths.admin.getHref('contacts')).toBe('/admin#contacts');
    expect(paths.adminGroup.getHref('g-1', 'locations')).toBe('/admin/groups/g-1#locations');
    expect(paths.signIn.getHref('demo')).toBe('/auth/demo');
    expect(paths.jobEdit.getHref('j')).toBe('/jobs/edit/j');
  });
});
