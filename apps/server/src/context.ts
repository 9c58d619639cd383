import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { Fleet } from './robot-link/fleet.ts';
import type { CommandOutbox } from './robot-link/outbox.ts';
import type { KeyStore } from './identity/keys.ts';
import type { EventBus } from './live/bus.ts';
import type { MailService } from './mail/worker.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { Notifications } from './notifications/worker.ts';

/** What every backend module is given: configuration, the database, the event bus, the signing keys and the fleet link. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  bus: EventBus;
  keys: KeyStore;
  fleet: Fleet;
  /** Robot commands recorded by a committed transaction go out through it; `wake()` after such a commit sends at once. */
  commands: CommandOutbox;
  /** Push notifications: the worker, and the VAPID public key browsers subscribe with. */
  notifications: Notifications & { vapidPublicKey: string };
  /** Mail: the worker sending the outbox, and the local catcher (no SMTP_URL) with the token that reads it. */
  mail: MailService & { catcherToken: string };
  /** Prometheus metrics of this process (GET /metrics): counters the code adds to, gauges read at scrape time. */
  metrics: Metrics;
}
