import { describe, expect, it } from 'vitest';
import { homeHrefFor, navItemsFor } from './nav-items.ts';

const keys = (...args: Parameters<typeof navItemsFor>) => navItemsFor(...args).map((item) => item.key);

describe('navigation links (behaviour §1, §6)', () => {
  it('shows the disinfection links in their documented order (behaviour §1); admin only to the restricted roles', () => {
    expect(keys('disinfection', ['done-teleoperator'])).toEqual(['jobs', 'robots', 'profile', 'map', 'logs', 'reports', 'settings']);
    expect(keys('disinfection', ['done-admin'])).toEqual(['jobs', 'robots', 'profile', 'admin', 'map', 'logs', 'reports', 'settings']);
    expect(keys('disinfection', ['done-superadmin'])).toContain('admin');
    expect(keys('disinfection', ['done-teleoperator', 'done-admin'])).toContain('admin');
    expect(keys('disinfection', [])).not.toContain('admin');
  });

  it('the logistics variant shows only deliveries', () => {
    expect(keys('logistics', ['done-superadmin'])).toEqual(['deliveries']);
    expect(homeHrefFor('logistics')).toBe('/deliveries');
    expect(homeHrefFor('disinfection')).toBe('/jobs');
  });

  it('links point at the route table', () => {
    expect(navItemsFor('disinfection', ['done-admin']).map((item) => item.href)).toEqual([
      '/jobs',
      '/robots',
      '/profile',
      '/admin#users',
      '/map',
      '/logs',
      '/reports',
      '/settings',
    ]);
  });
});
