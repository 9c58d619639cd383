/**
 * Applies what a robot reports, one message at a time in its chain (message-intake.ts): a state (headerId
 * check, pings answered, `readState`, the robot's fields committed, the listeners told), a connection message
 * (online, or offline with the status no longer shown as live) and a factsheet.
 */
import { eq } from 'drizzle-orm';
import { modeFromOperatingMode, RobotMode, type ConnectionMessage, type ConnectionState, type FactsheetMessage, type StateMessage } from '@uvd/contracts';
import type { Db } from '../../db/client.ts';
import { robots } from '../../db/schema.ts';
import { readState } from '../events.ts';
import type { RobotFields } from '../robot-fields.ts';
import type { FloorOf } from './floor-cache.ts';
import type { FleetListeners } from './listeners.ts';
import type { MessageStats } from './message-stats.ts';
import { pingOfError } from './pings.ts';
import type { Tracked } from './robot-cache.ts';
import type { RowWriter } from './row-writer.ts';

export interface StateApply {
  applyState: (tracked: Tracked, state: StateMessage) => Promise<void>;
  applyConnection: (tracked: Tracked, message: ConnectionMessage) => Promise<void>;
  applyFactsheet: (tracked: Tracked, message: FactsheetMessage) => Promise<void>;
  /** The robot went away (`connection` says how): its status is no longer shown as live. */
  goOffline: (tracked: Tracked, connection: ConnectionState) => Promise<void>;
}

export function createStateApply(deps: {
  db: Db;
  messages: MessageStats;
  floorOf: FloorOf;
  writer: RowWriter;
  listeners: FleetListeners;
}): StateApply {
  const { db, floorOf, listeners } = deps;
  const { counts: stats, drop } = deps.messages;
  const { commit, publishUpdate } = deps.writer;
  const { notifyConnection } = listeners;

  const applyState = async (tracked: Tracked, state: StateMessage) => {
    if (tracked.lastHeaderId !== undefined && state.headerId <= tracked.lastHeaderId) {
      drop('duplicate', 'state', `headerId ${state.headerId} <= ${tracked.lastHeaderId}`);
      return;
    }
    stats.accepted++;
    const now = Date.now();
    tracked.lastHeaderId = state.headerId;
    tracked.lastHeardAt = now;
    tracked.operatingMode = state.operatingMode;
    tracked.lastNode = { orderId: state.orderId, nodeId: state.lastNodeId, sequenceId: state.lastNodeSequenceId };
    // A state is proof of a live connection, whatever the last connection message said.
    tracked.connection = 'ONLINE';
    if (tracked.stale) {
      tracked.stale = false;
      publishUpdate(tracked, { robot_id: tracked.robot.robotId, field: 'stale', value: false });
    }
    let signal = tracked.current.signal;
    for (const action of state.actionStates) {
      // Any report of the ping proves the round trip: a robot that does not know uvd_ping reports it FAILED.
      const sentAt = tracked.pings.get(action.actionId);
      if (sentAt === undefined) continue;
      tracked.pings.delete(action.actionId);
      signal = Math.max(0, Math.round(now - sentAt));
    }
    // A robot that refused uvd_ping is pinged with VDA 5050's stateRequest from now on; its refusal counts as
    // the answer, and is not one of the robot's own errors.
    const errors = state.errors.filter((error) => {
      const pingId = pingOfError(error);
      if (pingId === undefined) return true;
      const sentAt = tracked.pings.get(pingId);
      if (sentAt !== undefined) {
        tracked.pings.delete(pingId);
        signal = Math.max(0, Math.round(now - sentAt));
        tracked.pingAction = 'stateRequest';
      }
      return false;
    });
    const floorId = await floorOf(tracked.robot.orgId, state.agvPosition?.mapId);
    const event = readState(tracked.robot, { ...state, errors }, now);
    tracked.work = event.work;
    const next: RobotFields = {
      ...event.fields,
      floorId: floorId === undefined ? tracked.current.floorId : floorId,
      signal,
      connectionState: 'ONLINE',
    };
    const wasOnline = tracked.current.connectionState === 'ONLINE';
    commit(tracked, next, now, !wasOnline);
    if (!wasOnline) notifyConnection(tracked, true);
    listeners.notifyState(tracked, state, event);
  };

  const goOffline = async (tracked: Tracked, connection: ConnectionState) => {
    tracked.connection = connection;
    tracked.pings.clear();
    const wasOnline = tracked.current.connectionState === 'ONLINE';
    // What a robot does while it is not connected is unknown: its last status is not shown as if it were live.
    const next: RobotFields = { ...tracked.current, mode: RobotMode.offline, status: 'offline', signal: -1, connectionState: connection };
    commit(tracked, next, Date.now(), true);
    if (wasOnline) notifyConnection(tracked, false);
  };

  const applyConnection = async (tracked: Tracked, message: ConnectionMessage) => {
    stats.accepted++;
    const now = Date.now();
    if (message.connectionState !== 'ONLINE') {
      await goOffline(tracked, message.connectionState);
      return;
    }
    const wasOnline = tracked.connection === 'ONLINE';
    tracked.connection = 'ONLINE';
    tracked.lastHeardAt = now;
    // A robot that (re)connects starts its headerIds again (VDA 5050 counts per topic and session).
    if (!wasOnline) tracked.lastHeaderId = undefined;
    // Until the first state tells the operating mode, the robot stays in the mode it had.
    const mode = tracked.operatingMode === undefined ? tracked.current.mode : modeFromOperatingMode(tracked.operatingMode);
    const rowWasOnline = tracked.current.connectionState === 'ONLINE';
    commit(tracked, { ...tracked.current, mode, connectionState: 'ONLINE' }, now, true);
    if (!rowWasOnline) notifyConnection(tracked, true);
  };

  const applyFactsheet = async (tracked: Tracked, message: FactsheetMessage) => {
    stats.accepted++;
    await db.update(robots).set({ factsheet: message }).where(eq(robots.id, tracked.robot.robotId));
  };

  return { applyState, applyConnection, applyFactsheet, goOffline };
}
