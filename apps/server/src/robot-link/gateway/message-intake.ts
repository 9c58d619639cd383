/**
 * The gateway's inbound path: each MQTT message is parsed (topic, JSON, the contracts' schema, the header naming
 * the topic's robot), its robot looked up, and the message applied on the robot's chain: messages of one robot
 * are applied one after another, in arrival order, so headerId checks hold.
 */
import { ConnectionMessage, FactsheetMessage, StateMessage } from '@uvd/contracts';
import { parseVdaTopic } from '../broker.ts';
import type { FleetLogger } from '../fleet.ts';
import { PerRobotQueue } from '../per-robot-queue.ts';
import type { MessageStats } from './message-stats.ts';
import { identityKey, type RobotCache, type Tracked } from './robot-cache.ts';
import type { StateApply } from './state-apply.ts';

const decodeJson = (payload: Buffer): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(payload.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
};

export interface MessageIntake {
  /** The MQTT client's message handler. */
  onMessage: (topic: string, payload: Buffer) => void;
  /** Runs `work` on the chain of the robot of `key` (`identityKey`), after the messages queued before it. */
  enqueue: (key: string, work: () => Promise<void>) => void;
  /** Settles when the work queued so far has run. */
  settled: () => Promise<void>;
}

export function createMessageIntake(deps: { robots: RobotCache; messages: MessageStats; apply: StateApply; log: FleetLogger }): MessageIntake {
  const { robots, log } = deps;
  const { drop } = deps.messages;
  const { applyState, applyConnection, applyFactsheet } = deps.apply;
  const lookup = robots.lookup;

  // Messages of one robot are applied one after another, in arrival order, so headerId checks hold.
  const chains = new PerRobotQueue<() => Promise<void>>({
    handle: (work) => work(),
    onError: (error, _work, key) => {
      log.warn({ err: error, robot: key }, 'fleet gateway could not apply a message');
    },
  });
  const enqueue = (key: string, work: () => Promise<void>) => {
    void chains.push(key, work);
  };

  /** Validates a message of `topic`; undefined (and counted) when it must be dropped. */
  const validate = <T extends { manufacturer: string; serialNumber: string }>(
    schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } },
    topic: string,
    manufacturer: string,
    serialNumber: string,
    payload: Buffer,
  ): T | undefined => {
    const json = decodeJson(payload);
    if (!json.ok) {
      drop('malformed', topic);
      return undefined;
    }
    const parsed = schema.safeParse(json.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      drop('invalid', topic, issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : undefined);
      return undefined;
    }
    // A robot may only speak for itself: the header must name the robot of the topic.
    if (parsed.data.manufacturer !== manufacturer || parsed.data.serialNumber !== serialNumber) {
      drop('spoofed', topic, `header names ${parsed.data.manufacturer}/${parsed.data.serialNumber}`);
      return undefined;
    }
    return parsed.data;
  };

  const onMessage = (topic: string, payload: Buffer) => {
    const parsedTopic = parseVdaTopic(topic);
    if (!parsedTopic) { drop('invalid', topic, 'not a VDA 5050 v2 topic'); return; }
    const { manufacturer, serialNumber, name } = parsedTopic;
    // An empty retained message clears the topic's retained message (a robot taken out of service): not news.
    if (payload.length === 0) return;
    let apply: ((tracked: Tracked) => Promise<void>) | undefined;
    if (name === 'state') {
      const state = validate(StateMessage, topic, manufacturer, serialNumber, payload);
      if (state) apply = (tracked) => applyState(tracked, state);
    } else if (name === 'connection') {
      const connection = validate(ConnectionMessage, topic, manufacturer, serialNumber, payload);
      if (connection) apply = (tracked) => applyConnection(tracked, connection);
    } else if (name === 'factsheet') {
      const factsheet = validate(FactsheetMessage, topic, manufacturer, serialNumber, payload);
      if (factsheet) apply = (tracked) => applyFactsheet(tracked, factsheet);
    }
    if (!apply) return;
    const run = apply;
    enqueue(identityKey(manufacturer, serialNumber), async () => {
      const tracked = await lookup(manufacturer, serialNumber);
      if (!tracked) { drop('unknownRobot', topic); return; }
      await run(tracked);
    });
  };

  return {
    onMessage,
    enqueue,
    settled: () => chains.settled(),
  };
}
