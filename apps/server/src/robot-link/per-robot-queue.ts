/**
 * Work of one robot, one item after another in arrival order; different robots' items run side by side. The
 * gateway applies each robot's messages on one, the outbox its acknowledgements, job execution and delivery
 * progress their state events. A robot's run starts on a later tick (the caller goes on at once) and ends, and
 * is forgotten, when its last waiting item is handled.
 */

export interface PerRobotQueueOptions<T> {
  /** Handles one item; a rejection goes to `onError` and the queue goes on with the robot's next item. */
  handle: (item: T, robotId: string) => Promise<void>;
  onError: (error: unknown, item: T, robotId: string) => void;
  /**
   * Given the robot's last waiting item and a new one, the one item that stands for both, or undefined to queue
   * the new one after it. Without it every item is handled.
   */
  coalesce?: (waiting: T, next: T) => T | undefined;
}

interface Run<T> {
  waiting: T[];
  done: Promise<void>;
}

export class PerRobotQueue<T> {
  readonly #runs = new Map<string, Run<T>>();
  readonly #options: PerRobotQueueOptions<T>;

  constructor(options: PerRobotQueueOptions<T>) {
    this.#options = options;
  }

  /** Queues `item` for `robotId`; settles when the robot's queue is empty again (this item handled or coalesced). */
  push(robotId: string, item: T): Promise<void> {
    const run = this.#runs.get(robotId);
    if (run) {
      const last = run.waiting.at(-1);
      const merged = last === undefined || !this.#options.coalesce ? undefined : this.#options.coalesce(last, item);
      if (merged === undefined) run.waiting.push(item);
      else run.waiting[run.waiting.length - 1] = merged;
      return run.done;
    }
    const created: Run<T> = { waiting: [item], done: Promise.resolve() };
    created.done = Promise.resolve().then(() => this.#drain(robotId, created));
    this.#runs.set(robotId, created);
    return created.done;
  }

  /** How many robots have items waiting or under way. */
  get size(): number {
    return this.#runs.size;
  }

  /** Settles when the runs under way now have ended (a robot queued meanwhile is not waited for). */
  async settled(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((run) => run.done));
  }

  /** Settles once no robot has anything waiting, including items queued while it waits. */
  async idle(): Promise<void> {
    while (this.#runs.size > 0) await this.settled();
  }

  async #drain(robotId: string, run: Run<T>): Promise<void> {
    for (;;) {
      const item = run.waiting.shift();
      // Taken out in the same step as the last item, so an item that comes later starts a new run.
      if (item === undefined) {
        this.#runs.delete(robotId);
        return;
      }
      try {
        await this.#options.handle(item, robotId);
      } catch (error) {
        this.#options.onError(error, item, robotId);
      }
    }
  }
}
