import { describe, expect, it } from 'vitest';
import { PerRobotQueue } from './per-robot-queue.ts';

/** A promise and the function that settles it. */
const gate = () => {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
};

describe('the per-robot queue', () => {
  it("handles one robot's items one after another in arrival order, and different robots' side by side", async () => {
    const log: string[] = [];
    const first = gate();
    const queue = new PerRobotQueue<string>({
      handle: async (item, robotId) => {
        log.push(`start ${robotId}:${item}`);
        if (item === 'a1') await first.opened;
        log.push(`end ${robotId}:${item}`);
      },
      onError: () => {},
    });
    const a = queue.push('a', 'a1');
    void queue.push('a', 'a2');
    const b = queue.push('b', 'b1');
    await b;
    // a1 is held: a2 waits for it, b1 did not.
    expect(log).toEqual(['start a:a1', 'start b:b1', 'end b:b1']);
    expect(queue.size).toBe(1);
    first.open();
    await a;
    expect(log).toEqual(['start a:a1', 'start b:b1', 'end b:b1', 'end a:a1', 'start a:a2', 'end a:a2']);
    expect(queue.size).toBe(0);
  });

  it('starts on a later tick, so the caller goes on at once', () => {
    const handled: number[] = [];
    const queue = new PerRobotQueue<number>({ handle: async (item) => { handled.push(item); }, onError: () => {} });
    void queue.push('a', 1);
    expect(handled).toEqual([]);
  });

  it("reports a failed item and goes on with the robot's next one", async () => {
    const errors: string[] = [];
    const handled: number[] = [];
    const queue = new PerRobotQueue<number>({
      handle: async (item) => {
        if (item === 1) throw new Error('no');
        handled.push(item);
      },
      onError: (error, item, robotId) => { errors.push(`${robotId}:${item}:${(error as Error).message}`); },
    });
    void queue.push('a', 1);
    await queue.push('a', 2);
    expect(errors).toEqual(['a:1:no']);
    expect(handled).toEqual([2]);
  });

  it('coalesces a new item with the last waiting one when told to, never with the one under way', async () => {
    const handled: string[] = [];
    const held = gate();
    const queue = new PerRobotQueue<string>({
      handle: async (item) => {
        handled.push(item);
        if (item === 'x1') await held.opened;
      },
      onError: () => {},
      coalesce: (waiting, next) => (waiting[0] === next[0] ? `${waiting}+${next}` : undefined),
    });
    const done = queue.push('a', 'x1');
    await Promise.resolve();
    await Promise.resolve();
    // x1 is under way; x2 and x3 wait as one, y1 after them.
    void queue.push('a', 'x2');
    void queue.push('a', 'x3');
    void queue.push('a', 'y1');
    held.open();
    await done;
    expect(handled).toEqual(['x1', 'x2+x3', 'y1']);
  });

  it('idle waits for items queued while it waits; settled for the runs under way only', async () => {
    const handled: string[] = [];
    const queue = new PerRobotQueue<string>({
      handle: async (item) => {
        handled.push(item);
        // An item that queues work for another robot, as a listener may.
        if (item === 'a1') void queue.push('b', 'b1');
      },
      onError: () => {},
    });
    void queue.push('a', 'a1');
    await queue.idle();
    expect(handled).toEqual(['a1', 'b1']);
    expect(queue.size).toBe(0);
    await queue.settled();
  });
});
