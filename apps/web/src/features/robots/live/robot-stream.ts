import { RobotUpdate } from '@uvd/contracts';
import type { Robot, RobotList } from '@uvd/contracts';
import { readSseStream } from './sse-reader.ts';

/** Opens GET /robot/stream for these robots; resolves with the response whose body is the event stream. */
export type RobotStreamConnect = (robotIds: readonly string[], lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

export interface RobotStreamHubOptions {
  connect: RobotStreamConnect;
  /** Receives every robot_update that parses with the contract, once per event whatever the number of subscribers. */
  onUpdate: (update: RobotUpdate) => void;
  /** First reconnect delay; doubled after each failed attempt up to maxDelayMs, reset once a connection opens. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

interface Connection {
  ids: readonly string[];
  refs: number;
  controller: AbortController;
  /** Telemetry events carry no id, but an id the server does send is handed back on reconnect. */
  lastEventId: string | undefined;
}

const ROBOT_UPDATE_EVENT = 'robot_update';

/** The stream's identity: the same robots in any order (or repeated) share one connection. */
export const streamKey = (robotIds: readonly string[]): string => [...new Set(robotIds)].sort().join(',');

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const parseUpdate = (data: string): RobotUpdate | null => {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = RobotUpdate.safeParse(json);
  return parsed.success ? parsed.data : null;
};

/**
 * One connection per robot stream, shared by every subscriber (reference-counted): the first subscription opens
 * it, the last release closes it. A dropped or refused connection is reopened with exponential backoff.
 */
export class RobotStreamHub {
  private readonly connections = new Map<string, Connection>();
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: RobotStreamHubOptions) {
    this.initialDelayMs = options.initialDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
  }

  /** Watches these robots; call the returned function to stop (calling it twice is harmless). */
  subscribe(robotIds: readonly string[]): () => void {
    const key = streamKey(robotIds);
    let connection = this.connections.get(key);
    if (!connection) {
      connection = { ids: key === '' ? [] : key.split(','), refs: 0, controller: new AbortController(), lastEventId: undefined };
      this.connections.set(key, connection);
      void this.run(connection);
    }
    connection.refs += 1;
    const held = connection;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.refs -= 1;
      if (held.refs === 0) {
        held.controller.abort();
        if (this.connections.get(key) === held) this.connections.delete(key);
      }
    };
  }

  /** Open streams and their subscriber counts, keyed by streamKey (for tests and diagnostics). */
  snapshot(): Map<string, number> {
    return new Map([...this.connections].map(([key, connection]) => [key, connection.refs]));
  }

  private async run(connection: Connection): Promise<void> {
    const { signal } = connection.controller;
    // A function, so the checks after each await read the live flag (the release may happen meanwhile).
    const stopped = () => signal.aborted;
    let attempt = 0;
    while (!signal.aborted) {
      try {
        const response = await this.options.connect(connection.ids, connection.lastEventId, signal);
        if (!response.ok || !response.body) throw new Error(`robot stream answered ${response.status}`);
        attempt = 0;
        await readSseStream(response.body, signal, (frame) => {
          if (frame.id !== undefined && frame.id !== '') connection.lastEventId = frame.id;
          if (frame.event !== ROBOT_UPDATE_EVENT) return;
          const update = parseUpdate(frame.data);
          if (update) this.options.onUpdate(update);
        });
      } catch {
        // A refused or broken connection is retried below like one that ended.
      }
      if (stopped()) return;
      const delay = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** attempt);
      attempt += 1;
      await sleep(delay, signal);
    }
  }
}

const patchRobot = (robot: Robot, update: RobotUpdate): Robot => {
  switch (update.field) {
    case 'battery':
      return { ...robot, battery: update.value, charging_status: update.charging_status };
    case 'ping':
      return { ...robot, signal: update.timeout ? -1 : update.value };
    case 'mode':
      return { ...robot, mode: update.value };
    case 'status':
      return { ...robot, status: update.value };
    case 'stale':
      return { ...robot, stale: update.value };
    case 'pose': {
      const { floor_id: floorId, ...pose } = update.value;
      return { ...robot, pose, floor_id: floorId };
    }
    case 'errors':
      // The robot list has no errors field: nothing of it to update.
      return robot;
  }
};

/**
 * Spec §4: a live robot update sets one named field on the matching robot; battery also copies charging_status;
 * a ping with timeout sets signal to -1, otherwise to the ping. The list is returned unchanged (same object) when
 * no robot matches.
 */
export const applyRobotUpdate = (list: RobotList | undefined, update: RobotUpdate): RobotList | undefined => {
  if (!list) return list;
  const payload = list.payload.map((robot) => (robot.robot_id === update.robot_id ? patchRobot(robot, update) : robot));
  return payload.some((robot, index) => robot !== list.payload[index]) ? { ...list, payload } : list;
};
