import { describe, expect, it } from 'vitest';
// The server's demo seed, read by this test only: the demo's default logins must be its admins.
import { DEMO_ORGANIZATIONS } from '../../../server/src/seed/demo-data.ts';
import { DEFAULT_DEMO_LOGINS, DEFAULT_DEMO_PEOPLE, parseLogins } from './logins.ts';

describe('demo logins', () => {
  it("default to the admin of each organization the server's demo seed creates", () => {
    const seeded = DEMO_ORGANIZATIONS.map((org) => {
      const admin = org.users.find((user) => user.roles.includes('done-admin'));
      return { organization: org.id, username: admin?.username, password: admin?.password };
    });
    expect(DEFAULT_DEMO_LOGINS).toEqual(seeded);
    expect(parseLogins(undefined)).toEqual(seeded);
    expect(parseLogins('  ')).toEqual(seeded);
  });

  it("default the logistics people to the seed's logistics users (VARIANT=logistics), or read DEMO_PEOPLE", () => {
    const seeded = DEMO_ORGANIZATIONS.flatMap((org) =>
      (org.logistics?.users ?? []).map((user) => ({ organization: org.id, username: user.username, password: user.password })),
    );
    expect(seeded.length).toBeGreaterThanOrEqual(2);
    expect(DEFAULT_DEMO_PEOPLE).toEqual(seeded);
    expect(parseLogins(undefined, DEFAULT_DEMO_PEOPLE)).toEqual(seeded);
    expect(parseLogins('demo:ward:pw', DEFAULT_DEMO_PEOPLE)).toEqual([{ organization: 'demo', username: 'ward', password: 'pw' }]);
  });

  it('read DEMO_LOGINS as organization:username:password entries, a password may hold colons', () => {
    expect(parseLogins('acme:boss:a:b, other:admin:x')).toEqual([
      { organization: 'acme', username: 'boss', password: 'a:b' },
      { organization: 'other', username: 'admin', password: 'x' },
    ]);
    expect(() => parseLogins('Acme:boss:x')).toThrow(/organization:username:password/);
    expect(() => parseLogins('acme:boss')).toThrow(/organization:username:password/);
  });
});
