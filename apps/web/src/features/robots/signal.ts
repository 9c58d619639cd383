/** Behaviour §9: the ping (ms) that counts as no signal left. */
export const MAX_PING_MS = 800;

export type SignalLevel = 'none' | 'low' | 'medium' | 'high' | 'full';

/**
 * Behaviour §9 maps the ping to a percent of MAX_PING_MS. A short round trip is a strong signal, so the percent is
 * what is left of the budget: percent = max(0, 100 - ping / 800 * 100). 0 ms is 100 %, 400 ms 50 %, 800 ms and
 * slower 0 %. A negative ping (-1: timeout) has no percent.
 */
export const signalPercent = (pingMs: number): number | null =>
  pingMs < 0 ? null : Math.max(0, 100 - (pingMs / MAX_PING_MS) * 100);

/** Behaviour §9 thresholds: below 33 low, 33 to 66 medium, 66 to 95 high, 95 and above full, negative none. */
export const signalLevel = (pingMs: number): SignalLevel => {
  const percent = signalPercent(pingMs);
  if (percent === null) return 'none';
  if (percent < 33) return 'low';
  if (percent < 66) return 'medium';
  if (percent < 95) return 'high';
  return 'full';
};

/** How many of the four bars are lit for a level. */
export const SIGNAL_BARS: Record<SignalLevel, number> = { none: 0, low: 1, medium: 2, high: 3, full: 4 };
