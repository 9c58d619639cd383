/**
 * A database handle's notifications on PostgreSQL: every channel a process listens on shares one LISTEN connection,
 * which is replaced when its backend is terminated, listening on every channel again and telling each listener.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLinkProxy } from '../testing/link-proxy.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../testing/test-database.ts';
import { LISTEN_APPLICATION_NAME, openDatabase, type Database } from './client.ts';

describe.skipIf(testEngine() !== 'postgres')('LISTEN on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let scratch: TestDatabase;
  let database: Database;
  let operator: pg.Client;

  beforeAll(async () => {
    scratch = await createTestDatabase();
    // A handle of its own with a fast reconnection, as a second server process on the same database would open it.
    database = await openDatabase({ databaseUrl: scratch.url, listenTiming: { minBackoffMs: 10, maxBackoffMs: 50 } });
    operator = new pg.Client({ connectionString: scratch.url });
    await operator.connect();
  });
  afterAll(async () => {
    await operator.end();
    await database.close();
    await scratch.drop();
  });

  const listenBackends = async () =>
    (
      await operator.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [LISTEN_APPLICATION_NAME],
      )
    ).rows.map((row) => row.pid);

  it('listens on every channel over one connection, and after its backend is terminated on every channel again', async () => {
    const heard: string[] = [];
    const restored = vi.fn<(channel: string) => void>();
    const channels = ['uvd_test_a', 'uvd_test_b', 'uvd_test_c'];
    const unlisteners = await Promise.all(
      channels.map((channel) =>
        database.notifier.listen(channel, (payload) => heard.push(`${channel}:${payload}`), { onRestored: () => { restored(channel); } }),
      ),
    );
    // A second listener on a channel already heard shares it too.
    const alsoHeard: string[] = [];
    const unlistenSecond = await database.notifier.listen('uvd_test_a', (payload) => alsoHeard.push(payload));

    const [backend, ...others] = await listenBackends();
    expect(backend).toBeDefined();
    expect(others).toEqual([]);
    for (const channel of channels) await database.notifier.notify(channel, 'before');
    await vi.waitFor(() => { expect(heard).toEqual(channels.map((channel) => `${channel}:before`)); });
    expect(alsoHeard).toEqual(['before']);

    await operator.query('SELECT pg_terminate_backend($1)', [backend]);
    await vi.waitFor(() => { expect(restored.mock.calls.map(([channel]) => channel).sort()).toEqual(channels); }, { timeout: 10_000 });
    const now = await listenBackends();
    expect(now).toHaveLength(1);
    expect(now).not.toContain(backend);

    heard.length = 0;
    for (const channel of channels) await database.notifier.notify(channel, 'after');
    await vi.waitFor(() => { expect(heard).toEqual(channels.map((channel) => `${channel}:after`)); });
    await vi.waitFor(() => { expect(alsoHeard).toEqual(['before', 'after']); });

    // A channel no one listens on any more is not heard; the others are.
    await unlistenSecond();
    await unlisteners[0]?.();
    heard.length = 0;
    await database.notifier.notify('uvd_test_a', 'gone');
    await database.notifier.notify('uvd_test_b', 'still');
    await vi.waitFor(() => { expect(heard).toEqual(['uvd_test_b:still']); });
    expect(alsoHeard).toEqual(['before', 'after']);

    // With no listener left the connection closes; a new listener opens one again.
    for (const unlisten of unlisteners.slice(1)) await unlisten();
    await vi.waitFor(async () => { expect(await listenBackends()).toEqual([]); });
    const unlistenAgain = await database.notifier.listen('uvd_test_c', (payload) => heard.push(`uvd_test_c:${payload}`));
    expect(await listenBackends()).toHaveLength(1);
    await database.notifier.notify('uvd_test_c', 'again');
    await vi.waitFor(() => { expect(heard).toContain('uvd_test_c:again'); });
    await unlistenAgain();
  });
  it('closes at once while it reconnects to a server that does not answer', async () => {
    // PostgreSQL behind a proxy whose link can go dead: no byte passes, no connection ends (a lost network path).
    const url = new URL(scratch.url ?? '');
    const proxy = await startLinkProxy({ host: url.hostname, port: Number(url.port || 5432) });
    try {
      url.host = `127.0.0.1:${String(proxy.port)}`;
      const behind = await openDatabase({
        databaseUrl: url.toString(),
        listenTiming: { checkIntervalMs: 100, checkTimeoutMs: 200, minBackoffMs: 10, maxBackoffMs: 20 },
        poolIdleTimeoutMs: 20,
      });
      await behind.notifier.listen('uvd_test_dead', () => undefined);
      // The pool's connections close unused, so only the LISTEN connection crosses the link when it goes dead.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const acceptedBefore = proxy.acceptedConnections;
      proxy.stall();
      // The check finds the connection dead and a new one is under way, which the dead link holds unanswered.
      await vi.waitFor(() => { expect(proxy.acceptedConnections).toBeGreaterThan(acceptedBefore); }, { timeout: 10_000 });
      const closing = behind.close().then(() => 'closed');
      const waited = new Promise((resolve) => setTimeout(resolve, 10_000, 'still waiting for the connection'));
      expect(await Promise.race([closing, waited])).toBe('closed');
    } finally {
      await proxy.close();
    }
  });
});
