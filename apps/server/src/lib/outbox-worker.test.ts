/**
 * The outbox workers' loop (outbox-worker.ts) on a real database's LISTEN/NOTIFY, and when an outbox's next row
 * falls due (outbox-due.ts) on real rows. What a loop does is counted in passes of its `work`; the mail, push and
 * webhook tests and the two-process tests cover what the passes send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox } from '../db/schema.ts';
import { waitUntil } from '../testing/execution-fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.ts';
import { nextOutboxDue } from './outbox-due.ts';
import { startOutboxWorker, type OutboxWorker } from './outbox-worker.ts';

const CHANNEL = 'uvd_outbox_worker_test';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let testDatabase: TestDatabase;
const workers: OutboxWorker[] = [];

beforeAll(async () => {
  testDatabase = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  await testDatabase.drop();
});

/** A worker whose passes are counted (with their times since it started); `nextDue` answers its alarm. */
async function countingWorker(nextDue: () => Date | undefined, pollMs = 60_000) {
  const started = Date.now();
  const passes: number[] = [];
  const worker = await startOutboxWorker({
    notifier: testDatabase.database.notifier,
    channel: CHANNEL,
    work: () => {
      passes.push(Date.now() - started);
      return Promise.resolve(0);
    },
    nextDue: () => Promise.resolve(nextDue()),
    onError: (error) => {
      throw error;
    },
    pollMs,
  });
  workers.push(worker);
  await waitUntil(async () => (passes.length > 0 ? true : undefined), 5000, 'the first pass');
  await worker.idle();
  return { worker, passes };
}

describe('an outbox worker', () => {
  it('makes no pass while nothing is due and no NOTIFY comes, and one at once on its channel', async () => {
    const { worker, passes } = await countingWorker(() => undefined);
    // An idle server used to look every second, in every outbox.
    await sleep(1500);
    expect(passes).toHaveLength(1);
    await testDatabase.database.notifier.notify(CHANNEL, '');
    await waitUntil(async () => (passes.length === 2 ? true : undefined), 2000, 'the pass the NOTIFY wakes');
    await worker.close();
  });

  it('wakes when the next retry falls due, however far off, and not before', async () => {
    let dueAt: Date | undefined = new Date(Date.now() + 1600);
    const { worker, passes } = await countingWorker(() => {
      const due = dueAt;
      dueAt = undefined;
      return due;
    });
    await waitUntil(async () => (passes.length === 2 ? true : undefined), 4000, 'the pass at the due time');
    expect(passes[1]).toBeGreaterThanOrEqual(1500);
    expect(passes[1]).toBeLessThan(2600);
    await worker.close();
  });

  it('looks again shortly, without spinning, at a due time already past that its pass left (a row another process holds)', async () => {
    const { worker, passes } = await countingWorker(() => new Date(0));
    await sleep(500);
    const count = passes.length;
    await worker.close();
    // An alarm at once for a past time made thousands of passes in half a second.
    expect(count).toBeGreaterThanOrEqual(5);
    expect(count).toBeLessThanOrEqual(25);
  });

  it('still finds, at its slow poll, what came without a NOTIFY or an alarm (a NOTIFY lost, a process that died)', async () => {
    const { worker, passes } = await countingWorker(() => undefined, 300);
    await sleep(1000);
    expect(passes.length).toBeGreaterThanOrEqual(3);
    await worker.close();
  });
});

describe("an outbox's next due time", () => {
  const db = () => testDatabase.database.db;
  const mail = (values: Partial<typeof mailOutbox.$inferInsert>) => ({ to: 'staff@example.test', subject: 'subject', text: 'text', ...values });

  it("is the earlier of a pending row's retry and a claimed row's lease; sent and failed rows are not due", async () => {
    const at = (seconds: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, seconds));
    await db().delete(mailOutbox);
    expect(await nextOutboxDue(db(), mailOutbox, mailOutbox)).toBeUndefined();

    await db()
      .insert(mailOutbox)
      .values([
        mail({ status: 'sent', nextAttemptAt: at(1) }),
        mail({ status: 'failed', nextAttemptAt: at(2) }),
        mail({ status: 'pending', nextAttemptAt: at(30) }),
        // Claimed at 1 s by a process that may die: due when its lease runs out, not at its own next attempt.
        mail({ status: 'sending', nextAttemptAt: at(3), leaseUntil: at(20) }),
      ]);
    expect(await nextOutboxDue(db(), mailOutbox, mailOutbox)).toEqual(at(20));

    await db().insert(mailOutbox).values(mail({ status: 'pending', nextAttemptAt: at(10) }));
    expect(await nextOutboxDue(db(), mailOutbox, mailOutbox)).toEqual(at(10));
  });
});
