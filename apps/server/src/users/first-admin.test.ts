import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, SessionUser, TokenResponse } from '@uvd/contracts';
import { openDatabase } from '../db/client.ts';
import { organizations, users } from '../db/schema.ts';
import { verifyPassword } from '../identity/passwords.ts';
import { expectStatus } from '../testing/assertions.ts';
import { runServerCli } from '../testing/cli.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { createFirstAdmin, FirstAdminError } from './first-admin.ts';

describe('the first admin of an organization (npm run admin:create)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startRouteTestServer();
  });
  afterAll(() => server.close());

  const signIn = (orgId: string, username: string, password: string) =>
    server.request('POST', `/idp/realms/${orgId}/protocol/openid-connect/token`, {
      form: { grant_type: 'password', client_id: server.context.config.clientId, username, password, scope: 'openid' },
    });

  it('makes the organization and an admin who signs in with the one-time password and must change it first', async () => {
    const orgId = `first-${crypto.randomUUID().slice(0, 8)}`;
    const admin = await createFirstAdmin(server.context.db, { orgId, email: ' Head.Nurse@Example.org ', orgName: "St John's", role: 'done-admin' });
    expect(admin).toMatchObject({ orgId, organizationCreated: true, username: 'head.nurse@example.org' });
    const [org] = await server.context.db.select().from(organizations).where(eq(organizations.id, orgId));
    expect(org?.name).toBe("St John's");

    const signedIn = await signIn(orgId, admin.username, admin.password);
    expectStatus(signedIn, 200);
    const token = TokenResponse.parse(signedIn.body).access_token;
    const me = await server.request('GET', '/api/user/my-profile', { token });
    expect(SessionUser.parse(me.body)).toMatchObject({ must_change_password: true, roles: ['done-admin'] });
    const users = await server.request('GET', '/api/user/users', { token });
    expectStatus(users, 403);
    expect(ApiError.parse(users.body).error).toBe('password_change_required');

    expectStatus(await server.request('POST', '/api/user/my-password', { token, body: { currentPassword: admin.password, password: 'a password of my own' } }), 204);
    const again = TokenResponse.parse((await signIn(orgId, admin.username, 'a password of my own')).body).access_token;
    expectStatus(await server.request('GET', '/api/user/users', { token: again }), 200);
  });

  it('adds a superadmin to an organization that exists, and never takes over an account', async () => {
    const orgId = await server.createOrg();
    const existing = await server.createUser(orgId, ['done-teleoperator'], { username: 'ward.lead@example.org' });
    const admin = await createFirstAdmin(server.context.db, { orgId, email: 'it@example.org', role: 'done-superadmin' });
    expect(admin.organizationCreated).toBe(false);
    expectStatus(await signIn(orgId, 'it@example.org', admin.password), 200);

    await expect(createFirstAdmin(server.context.db, { orgId, email: 'ward.lead@example.org', role: 'done-superadmin' })).rejects.toThrow(
      new FirstAdminError(`${orgId} already has the user ward.lead@example.org: nothing was changed`),
    );
    const [row] = await server.context.db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, existing.id)));
    expect(row).toMatchObject({ roles: ['done-teleoperator'], mustChangePassword: false });
    expectStatus(await signIn(orgId, existing.username, existing.password), 200);

    await expect(createFirstAdmin(server.context.db, { orgId: 'Not An Id', email: 'a@example.org', role: 'done-admin' })).rejects.toThrow(/lowercase letters/);
    await expect(createFirstAdmin(server.context.db, { orgId, email: 'not-an-email', role: 'done-admin' })).rejects.toThrow(/not an email address/);
  });
});

describe('npm run admin:create on a data folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'uvd-first-admin-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const run = (args: string[]) => runServerCli('src/users/first-admin-cli.ts', args, { DATA_DIR: join(dir, 'data'), DATABASE_URL: '' });

  it('prints the one-time password of the new admin, refuses the same user again, and names what is missing', async () => {
    const made = await run(['--org', 'stjohns', '--email', 'admin@stjohns.example', '--name', "St John's"]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('organization stjohns created');
    expect(made.stdout).toContain('user admin@stjohns.example (done-admin)');
    const password = /one-time password: (\S+)/.exec(made.stdout)?.[1] ?? '';

    const again = await run(['--org', 'stjohns', '--email', 'admin@stjohns.example']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('stjohns already has the user admin@stjohns.example: nothing was changed');
    const missing = await run(['--org', 'stjohns']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('usage: npm run admin:create -- --org ID --email EMAIL');

    const database = await openDatabase({ dataDir: join(dir, 'data') });
    try {
      const [row] = await database.db.select().from(users).where(eq(users.orgId, 'stjohns'));
      expect(row).toMatchObject({ username: 'admin@stjohns.example', roles: ['done-admin'], mustChangePassword: true, enabled: true });
      expect(await verifyPassword(row?.passwordHash ?? '', password)).toBe(true);
    } finally {
      await database.close();
    }
  }, 120_000);
});
