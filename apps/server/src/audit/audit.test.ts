/**
 * The audit trail through real HTTP, on PGlite and on PostgreSQL (TEST_DATABASE_URL): what a person changes is
 * recorded with who, when, from where, before and after; what the server decides (a scheduled start's order) as
 * the system's; the chain tells an edited or removed entry; nothing in the API changes it; organizations and roles
 * see only what they may.
 */
import { and, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, AuditEntry, AuditList, AuditVerification, Contact } from '@uvd/contracts';
import type { SimRobot } from '@uvd/robot-sim';
import { ADVISORY_LOCKS } from '../db/advisory-locks.ts';
import { auditEntries } from '../db/schema.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil } from '../testing/execution-fixtures.ts';
import { runServerCli } from '../testing/cli.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { testEngine } from '../testing/test-database.ts';
import { canonicalJson, chainPending, entryHash } from './chain.ts';
import { verifyOrganizations } from './verify.ts';

let server: TestServer;
const sims: SimRobot[] = [];
beforeAll(async () => {
  server = await startTestServer({ schedulerPollMs: 50 });
});
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  await server.close();
});

const contactInput = { title: 'Head nurse', name: 'Maija Meikäläinen', phone: '+358 40 123 4567', email: 'maija@hospital.test' };

async function search(token: string, query: Record<string, string | number> = {}): Promise<AuditList> {
  const response = await server.request('GET', '/api/audit', { token, query });
  expect(response.status).toBe(200);
  return AuditList.parse(response.body);
}

/** The export as its lines (the harness would read its `x-ndjson` as one JSON document). */
async function exportLines(token: string, query: Record<string, string> = {}): Promise<{ status: number; type: string | null; entries: AuditEntry[] }> {
  const url = new URL('/api/audit/export', server.url);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  const entries = response.status === 200 ? text.split('\n').filter(Boolean).map((line) => AuditEntry.parse(JSON.parse(line))) : [];
  return { status: response.status, type: response.headers.get('content-type'), entries };
}

async function verify(token: string): Promise<AuditVerification> {
  const response = await server.request('GET', '/api/audit/verify', { token });
  expect(response.status).toBe(200);
  return AuditVerification.parse(response.body);
}

/** Does what an attacker with the database owner's rights would: switches the append-only guard off for `work`. */
async function asAttacker(work: () => Promise<unknown>): Promise<void> {
  const db = server.context.db;
  await db.execute(sql`ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_append_only`);
  try {
    await work();
  } finally {
    await db.execute(sql`ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_append_only`);
  }
}

describe('recording', () => {
  it('records a change through the API with who, when, from where, the call, before and after', async () => {
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    const before = Date.now();
    const created = await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: contactInput });
    expect(created.status).toBe(201);
    const contact = Contact.parse(created.body);
    const deleted = await server.request('DELETE', `/api/contact/admin/profile/contacts/${contact.id}`, { token: admin.token });
    expect(deleted.status).toBe(200);

    const trail = await search(admin.token, { entity: 'contact' });
    expect(trail.count).toBe(2);
    const [removal, creation] = trail.payload;
    expect(creation).toMatchObject({
      source: 'api',
      actor: admin.username,
      actor_id: admin.id,
      ip: '127.0.0.1',
      request: 'POST /api/contact/admin/profile/contacts',
      entity: 'contact',
      entity_id: contact.id,
      operation: 'insert',
      before: null,
      after: { id: contact.id, org_id: org, name: contactInput.name, phone: contactInput.phone },
    });
    expect(removal).toMatchObject({
      actor: admin.username,
      request: 'DELETE /api/contact/admin/profile/contacts/:id',
      operation: 'delete',
      before: { id: contact.id, name: contactInput.name },
      after: null,
    });
    const at = Date.parse(creation?.at ?? '');
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it("records a job's creation in its transaction, rooms included, and keeps secrets out", async () => {
    const world = await executionWorld(server, 2);
    const job = await createJobFor(server, world);
    const trail = await search(world.admin.token, { q: job.job_id });
    const created = trail.payload.find((entry) => entry.entity === 'job');
    expect(created).toMatchObject({ source: 'api', actor: world.admin.username, operation: 'insert', request: 'POST /api/jobs/jobs/:robotId' });
    expect(created?.after).toMatchObject({ id: job.job_id, name: 'Ward round', status: 'Scheduled' });
    const rooms = trail.payload.filter((entry) => entry.entity === 'job_room');
    expect(rooms.map((entry) => entry.entity_id).sort()).toEqual([`${job.job_id}:0`, `${job.job_id}:1`]);
    expect(rooms.every((entry) => entry.actor === world.admin.username)).toBe(true);

    // The fixture set the robot's MQTT password: recorded as changed, never its hash.
    const robot = (await search(world.admin.token, { entity: 'robot' })).payload.find((entry) => entry.operation === 'update');
    expect(robot?.after?.mqtt_password_hash).toBe('[changed]');
    expect(JSON.stringify((await search(world.admin.token, { limit: 200 })).payload)).not.toMatch(/\$argon2/);
  });

  it("records a robot command that the scheduler decided as the system's, and no telemetry", async () => {
    const world = await executionWorld(server, 1);
    await playWorldRobot(server, world, sims);
    const job = await createJobFor(server, world, { startTime: new Date(Date.now() + 300) });
    const order = await waitUntil(async () => {
      const trail = await search(world.admin.token, { entity: 'robot_command', q: job.job_id });
      return trail.payload.find((entry) => entry.after?.kind === 'order');
    }, 10_000, "the scheduled start's order in the trail");
    expect(order).toMatchObject({ source: 'system', actor: null, actor_id: null, ip: null, request: null, operation: 'insert' });
    // The start itself (newest first, later updates of the running job, as its robot reports, come before it).
    const started = (await search(world.admin.token, { entity: 'job', q: job.job_id })).payload.find(
      (entry) => entry.before?.status === 'Scheduled' && entry.after?.status === 'Running',
    );
    expect(started).toMatchObject({ source: 'system', operation: 'update', actor: null });
    // The robot reported its state several times a second meanwhile: none of it is in the trail.
    const robotEntries = (await search(world.admin.token, { entity: 'robot' })).payload;
    expect(robotEntries.every((entry) => entry.before?.battery === undefined || entry.before.battery === entry.after?.battery || entry.operation !== 'update')).toBe(true);
    expect(robotEntries.filter((entry) => entry.operation === 'update').length).toBeLessThanOrEqual(1);
  });
});

describe('the chain', () => {
  it('holds for untouched entries and is verifiable from the export alone', async () => {
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    for (const name of ['A', 'B', 'C']) {
      await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name } });
    }
    expect(await verify(admin.token)).toEqual({ ok: true, checked: expect.any(Number) as number, broken_at: null, reason: null });

    const { status, type, entries } = await exportLines(admin.token);
    expect(status).toBe(200);
    expect(type).toContain('application/x-ndjson');
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index + 1));
    let prev: string | null = null;
    for (const { hash, prev_hash, ...content } of entries) {
      expect(prev_hash).toBe(prev);
      expect(hash).toBe(entryHash(org, content, prev_hash));
      prev = hash;
    }
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }] })).toBe('{"a":[{"c":"x","d":null}],"b":1}');
  });

  it('detects an edited entry (hash mismatch) and a removed one (gap), via the API and the verifier', async () => {
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    for (const name of ['A', 'B', 'C', 'D']) {
      await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name } });
    }
    await chainPending(server.context.db, org);
    const db = server.context.db;
    const seqOf = async (name: string) => {
      const entry = (await search(admin.token, { entity: 'contact', q: `"name": "${name}"` })).payload[0];
      return entry?.seq ?? 0;
    };
    const editedSeq = await seqOf('B');
    await asAttacker(() =>
      db.execute(sql`UPDATE audit_entries SET after = jsonb_set(after, '{name}', '"Mallory"') WHERE org_id = ${org} AND seq = ${editedSeq}`),
    );
    expect(await verify(admin.token)).toMatchObject({ ok: false, broken_at: editedSeq, reason: 'hash_mismatch', checked: editedSeq - 1 });
    const report = await verifyOrganizations(db, org);
    expect(report.ok).toBe(false);
    expect(report.lines.join('\n')).toContain(`BROKEN at entry ${editedSeq}`);

    // Put back, the chain holds again; then remove another entry.
    await asAttacker(() =>
      db.execute(sql`UPDATE audit_entries SET after = jsonb_set(after, '{name}', '"B"') WHERE org_id = ${org} AND seq = ${editedSeq}`),
    );
    expect((await verify(admin.token)).ok).toBe(true);
    const removedSeq = await seqOf('C');
    await asAttacker(() => db.execute(sql`DELETE FROM audit_entries WHERE org_id = ${org} AND seq = ${removedSeq}`));
    expect(await verify(admin.token)).toMatchObject({ ok: false, broken_at: removedSeq + 1, reason: 'gap' });
  });

  it('refuses changing or removing an entry in the database, and the API has no way to', async () => {
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: contactInput });
    await chainPending(server.context.db, org);
    const db = server.context.db;
    await expect(db.execute(sql`UPDATE audit_entries SET actor = 'someone else' WHERE org_id = ${org}`)).rejects.toThrow();
    await expect(db.execute(sql`UPDATE audit_entries SET hash = 'x' WHERE org_id = ${org}`)).rejects.toThrow();
    await expect(db.execute(sql`DELETE FROM audit_entries WHERE org_id = ${org}`)).rejects.toThrow();
    await expect(db.execute(sql`TRUNCATE audit_entries`)).rejects.toThrow();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await server.request(method, '/api/audit', { token: admin.token, body: {} });
      expect([404, 405]).toContain(response.status);
    }
    expect((await verify(admin.token)).ok).toBe(true);
  });
});

describe('reading', () => {
  it("shows only the caller's organization, to admins; teleoperators get 403", async () => {
    const org = await server.createOrg('audit');
    const other = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-superadmin']);
    const otherAdmin = await server.createUser(other, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator']);
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: otherAdmin.token, body: { ...contactInput, name: 'Foreign' } });
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name: 'Mine' } });
    const mine = await search(admin.token);
    expect(mine.payload.length).toBeGreaterThan(0);
    expect(JSON.stringify(mine.payload)).not.toContain('Foreign');
    expect(mine.payload.every((entry) => entry.after?.org_id === undefined || entry.after.org_id === org)).toBe(true);
    const exported = await exportLines(admin.token);
    expect(exported.entries.length).toBe(mine.count);
    expect(JSON.stringify(exported.entries)).not.toContain('Foreign');
    for (const path of ['/api/audit', '/api/audit/export', '/api/audit/verify']) {
      const response = await server.request('GET', path, { token: operator.token });
      expect(response.status).toBe(403);
      expect(ApiError.parse(response.body).error).toBe('forbidden');
      expect((await server.request('GET', path)).status).toBe(401);
    }
  });

  it('searches by free text, actor, entity and period, newest first and paged; exports oldest first', async () => {
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    const colleague = await server.createUser(org, ['done-admin']);
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name: 'First_100%' } });
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: colleague.token, body: { ...contactInput, name: 'Second' } });
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name: 'Third' } });

    const all = await search(admin.token, { entity: 'contact' });
    expect(all.payload.map((entry) => entry.after?.name)).toEqual(['Third', 'Second', 'First_100%']);
    expect((await search(admin.token, { entity: 'contact', actor: colleague.username.toUpperCase() })).payload.map((e) => e.after?.name)).toEqual(['Second']);
    // LIKE's wildcards are literal in the search.
    expect((await search(admin.token, { q: '_100%' })).payload.map((e) => e.after?.name)).toEqual(['First_100%']);
    expect((await search(admin.token, { q: '1_0' })).count).toBe(0);
    const page = await search(admin.token, { entity: 'contact', limit: 1, offset: 1 });
    expect(page).toMatchObject({ count: 3, payload: [{ after: { name: 'Second' } }] });
    const today = new Date().toLocaleDateString('sv-SE', { timeZone: 'Europe/Helsinki' });
    expect((await search(admin.token, { entity: 'contact', from_date: today, to_date: today })).count).toBe(3);
    expect((await search(admin.token, { entity: 'contact', to_date: '2020-01-01' })).count).toBe(0);

    const names = (await exportLines(admin.token, { entity: 'contact' })).entries.map((entry) => entry.after?.name);
    expect(names).toEqual(['First_100%', 'Second', 'Third']);
  });

  it('answers a bad period or filter with 400 naming the field', async () => {
    const admin = await server.createUser(await server.createOrg('audit'), ['done-admin']);
    for (const [query, field] of [
      [{ from_date: '2026-02-01', to_date: '2026-01-01' }, 'from_date'],
      [{ from_date: 'yesterday' }, 'from_date'],
      [{ limit: 0 }, 'limit'],
      [{ q: 'x'.repeat(201) }, 'q'],
    ] as const) {
      const response = await server.request('GET', '/api/audit', { token: admin.token, query });
      expect(response.status).toBe(400);
      expect(JSON.stringify(ApiError.parse(response.body))).toContain(field);
    }
    expect((await exportLines(admin.token, { from_date: '2026-02-01', to_date: '2026-01-01' })).status).toBe(400);
  });
});

// PostgreSQL only: PGlite is one session, so no other process can be chaining while a request reads.
describe.skipIf(testEngine() !== 'postgres')('reading while another process chains the organization (PostgreSQL)', () => {
  it('waits for that chain: every entry searched, exported or verified has its place (an entry without one was shown, and the verifier checked fewer)', async () => {
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name: 'Chained' } });
    await chainPending(server.context.db, org);
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: { ...contactInput, name: 'Pending' } });

    // Another server process holds the organization's chain, as its chainer does for a round.
    const holder = new pg.Client({ connectionString: server.testDatabase.url ?? '' });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADVISORY_LOCKS.auditChainClass, org]);
      const reads = Promise.all([search(admin.token, { entity: 'contact' }), exportLines(admin.token), verify(admin.token)]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query('COMMIT');
      const [found, exported, verification] = await reads;
      expect(found.payload.map((entry) => [entry.after?.name, entry.seq !== null, entry.hash !== null])).toEqual([
        ['Pending', true, true],
        ['Chained', true, true],
      ]);
      expect(exported.entries.every((entry) => entry.seq !== null && entry.hash !== null)).toBe(true);
      expect(verification).toMatchObject({ ok: true, checked: exported.entries.length });
    } finally {
      await holder.end();
    }
  });
});

describe('npm run audit:verify', () => {
  // The command opens the database by itself: PostgreSQL only (an in-memory PGlite has no second opener).
  it.skipIf(!process.env.TEST_DATABASE_URL)('exits 0 on a holding chain and 1 on a broken one, saying where', async () => {
    const url = server.testDatabase.url ?? '';
    const org = await server.createOrg('audit');
    const admin = await server.createUser(org, ['done-admin']);
    await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body: contactInput });
    await chainPending(server.context.db, org);
    const run = async (orgId: string) => {
      const result = await runServerCli('src/audit/verify-cli.ts', ['--org', orgId], { DATABASE_URL: url });
      return { code: result.code, out: result.stdout + result.stderr };
    };
    const good = await run(org);
    expect(good.code).toBe(0);
    expect(good.out).toContain(`${org}: ok`);
    const [first] = await server.context.db.select().from(auditEntries).where(and(eq(auditEntries.orgId, org), eq(auditEntries.seq, 1)));
    expect(first).toBeDefined();
    await asAttacker(() => server.context.db.execute(sql`UPDATE audit_entries SET actor = 'mallory' WHERE org_id = ${org} AND seq = 1`));
    const bad = await run(org);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`${org}: BROKEN at entry 1`);
  }, 60_000);
});
