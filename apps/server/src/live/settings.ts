/** Tunables of the live streams, with the defaults a deployment gets when it sets nothing. */
import type { Config } from '../config.ts';

export interface LiveSettings {
  /**
   * Interval of the `: ping` comment. Proxies and load balancers commonly cut connections idle for 30–60 s,
   * and a client notices a dead connection only when it expects data: 15 s keeps both sides aware.
   */
  heartbeatMs: number;
  /** Replay horizon: events older than this are pruned, and a client gone longer reloads its list. */
  retentionMs: number;
  /** How often old events are pruned. */
  pruneIntervalMs: number;
  /** How long a connection trusts its cached set of visible robots before reading it again. */
  visibilityRefreshMs: number;
  /**
   * Bytes a client may leave unread in its socket buffer before it is dropped: a stalled reader must not make
   * the server buffer without bound. It reconnects with Last-Event-ID and catches up from the event log.
   */
  maxBufferedBytes: number;
  /** Events waiting for their authorization check before the connection is dropped as too slow. */
  maxQueuedEvents: number;
  /**
   * How long a replay waits for a client to take what was written before dropping it: a replay is written as
   * fast as the client reads (not cut by maxBufferedBytes), but a client reading nothing must not hold it open.
   */
  replayStallMs: number;
  /** Events read from the log per query during a replay. */
  replayPageSize: number;
  /** `retry:` advice to EventSource clients, in milliseconds. */
  retryMs: number;
}

export const DEFAULT_LIVE_SETTINGS: LiveSettings = {
  heartbeatMs: 15_000,
  retentionMs: 60 * 60 * 1000,
  pruneIntervalMs: 5 * 60 * 1000,
  visibilityRefreshMs: 30_000,
  maxBufferedBytes: 1024 * 1024,
  maxQueuedEvents: 1000,
  replayStallMs: 60_000,
  replayPageSize: 500,
  retryMs: 3000,
};

export function liveSettings(config: Config, overrides: Partial<LiveSettings> = {}): LiveSettings {
  const retentionMs = config.liveRetentionMs;
  return {
    ...DEFAULT_LIVE_SETTINGS,
    heartbeatMs: config.liveHeartbeatMs,
    retentionMs,
    maxBufferedBytes: config.liveMaxBufferedBytes,
    pruneIntervalMs: Math.min(DEFAULT_LIVE_SETTINGS.pruneIntervalMs, Math.max(1000, Math.floor(retentionMs / 4))),
    ...overrides,
  };
}
