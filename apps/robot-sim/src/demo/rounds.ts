/**
 * A demo's rounds: never two at once (`round`, which tests call too), and one `intervalMs` after the previous
 * ended, the first `firstRoundMs` after the start, until `stop`. A round under way reads `stopped` to wind down.
 */
export interface Rounds<T> {
  round: () => Promise<T>;
  readonly stopped: boolean;
  /** No more rounds; resolves when the one under way is over. */
  stop: () => Promise<void>;
}

export interface RoundsOptions<T> {
  intervalMs: number;
  firstRoundMs: number;
  /** A timed round's result (not one a caller of `round` asked for). */
  onRound?: (result: T) => void;
  /** A timed round that failed; the next one runs as planned. */
  onError: (error: unknown) => void;
}

export function runRounds<T>(roundNow: () => Promise<T>, options: RoundsOptions<T>): Rounds<T> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let chain: Promise<unknown> = Promise.resolve();
  const round = (): Promise<T> => {
    const next = chain.then(roundNow, roundNow);
    chain = next.catch(() => undefined);
    return next;
  };

  const loop = () => {
    if (stopped) return;
    running = round()
      .then((result) => {
        options.onRound?.(result);
      })
      .catch(options.onError)
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(loop, options.intervalMs);
      });
  };
  timer = setTimeout(loop, options.firstRoundMs);

  return {
    round,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await chain;
    },
  };
}
