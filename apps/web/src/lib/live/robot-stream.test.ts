import type { RobotList, RobotUpdate } from '@uvd/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { robotFixture } from '../../testing/robot-fixtures.ts';
import { applyRobotUpdate, RobotStreamHub, streamKey } from './robot-stream.ts';

const A = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const B = '1c9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02';
const list = (): RobotList => ({ count: 2, payload: [robotFixture({ robot_id: A, name: 'Alpha' }), robotFixture({ robot_id: B, name: 'Bravo' })] });

describe('applyRobotUpdate (behaviour §4 live robot updates)', () => {
  const apply = (update: RobotUpdate) => applyRobotUpdate(list(), update);

  it('sets the named field on the matching robot only', () => {
    const next = apply({ robot_id: A, field: 'status', value: 'disinfecting' });
    expect(next?.payload[0]?.status).toBe('disinfecting');
    expect(next?.payload[1]).toEqual(list().payload[1]);
    expect(apply({ robot_id: A, field: 'mode', value: 4 })?.payload[0]?.mode).toBe(4);
    expect(apply({ robot_id: A, field: 'stale', value: true })?.payload[0]?.stale).toBe(true);
    const posed = apply({ robot_id: A, field: 'pose', value: { x: 1, y: 2, theta: 0.5, floor_id: B } })?.payload[0];
    expect(posed?.pose).toEqual({ x: 1, y: 2, theta: 0.5 });
    expect(posed?.floor_id).toBe(B);
  });

  it('a battery update also copies charging_status', () => {
    const robot = apply({ robot_id: B, field: 'battery', value: 42, charging_status: 1 })?.payload[1];
    expect(robot).toMatchObject({ battery: 42, charging_status: 1 });
  });

  it('a ping sets signal to the ping, a timeout to -1', () => {
    expect(apply({ robot_id: A, field: 'ping', value: 120, timeout: false })?.payload[0]?.signal).toBe(120);
    expect(apply({ robot_id: A, field: 'ping', value: -1, timeout: true })?.payload[0]?.signal).toBe(-1);
  });

  it('leaves the list as it is for an unknown robot, an errors update or an empty cache', () => {
    const before = list();
    expect(applyRobotUpdate(before, { robot_id: '2d9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f03', field: 'mode', value: 1 })).toBe(before);
    expect(applyRobotUpdate(before, { robot_id: A, field: 'errors', value: [] })).toBe(before);
    expect(applyRobotUpdate(undefined, { robot_id: A, field: 'mode', value: 1 })).toBeUndefined();
  });
});

afterEach(() => {
  vi.useRealTimers();
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

/** A transport that records each connection and hands the test its stream. */
const fakeTransport = () => {
  const opened: { ids: readonly string[]; lastEventId: string | undefined; stream: FakeEventStream; signal: AbortSignal }[] = [];
  const refuse = { next: 0 };
  const connect = (ids: readonly string[], lastEventId: string | undefined, signal: AbortSignal) => {
    const stream = new FakeEventStream();
    opened.push({ ids, lastEventId, stream, signal });
    if (refuse.next > 0) {
      refuse.next -= 1;
      return Promise.resolve(new Response(null, { status: 503 }));
    }
    return Promise.resolve(stream.response);
  };
  return { opened, refuse, connect };
};

describe('RobotStreamHub (one reference-counted connection per stream)', () => {
  it('shares one connection between subscribers of the same robots and closes it after the last release', async () => {
    const transport = fakeTransport();
    const updates: RobotUpdate[] = [];
    const hub = new RobotStreamHub({ connect: transport.connect, onUpdate: (update) => updates.push(update) });
    const first = hub.subscribe([A, B]);
    const second = hub.subscribe([B, A, A]);
    expect(streamKey([B, A, A])).toBe(streamKey([A, B]));
    await until(() => transport.opened.length === 1);
    expect(hub.snapshot()).toEqual(new Map([[streamKey([A, B]), 2]]));

    transport.opened[0]?.stream.event('robot_update', { robot_id: A, field: 'mode', value: 1 });
    await until(() => updates.length === 1);
    // Delivered once for both subscribers: the cache is written once per event.
    expect(updates).toEqual([{ robot_id: A, field: 'mode', value: 1 }]);

    first();
    first();
    expect(transport.opened[0]?.signal.aborted).toBe(false);
    second();
    expect(transport.opened[0]?.signal.aborted).toBe(true);
    expect(hub.snapshot().size).toBe(0);
    expect(transport.opened).toHaveLength(1);
  });

  it('opens separate streams for different robot lists', async () => {
    const transport = fakeTransport();
    const hub = new RobotStreamHub({ connect: transport.connect, onUpdate: () => undefined });
    const releaseA = hub.subscribe([A]);
    const releaseB = hub.subscribe([B]);
    await until(() => transport.opened.length === 2);
    expect(transport.opened.map((connection) => connection.ids)).toEqual([[A], [B]]);
    releaseA();
    releaseB();
  });

  it('ignores frames that are not robot updates or do not parse, and reconnects with backoff after a drop or a refusal', async () => {
    const transport = fakeTransport();
    const updates: RobotUpdate[] = [];
    const hub = new RobotStreamHub({ connect: transport.connect, onUpdate: (update) => updates.push(update), initialDelayMs: 5, maxDelayMs: 20 });
    const release = hub.subscribe([A]);
    await until(() => transport.opened.length === 1);
    const stream = transport.opened[0]?.stream;
    stream?.push(': ping\n\n');
    stream?.push('event: robot_update\ndata: {"robot_id":"nope","field":"mode","value":9}\n\n');
    stream?.push('event: robot_update\ndata: not json\n\n');
    stream?.push('id: 7\nevent: job_change\ndata: {}\n\n');
    // A frame split across chunks still arrives whole.
    stream?.push(`event: robot_update\ndata: {"robot_id":"${A}","field":"ping",`);
    stream?.push('"value":-1,"timeout":true}\n\n');
    await until(() => updates.length === 1);
    expect(updates[0]).toEqual({ robot_id: A, field: 'ping', value: -1, timeout: true });

    transport.refuse.next = 1;
    stream?.end();
    await until(() => transport.opened.length === 3);
    // The id the server did send is handed back as Last-Event-ID.
    expect(transport.opened[1]?.lastEventId).toBe('7');
    expect(transport.opened[2]?.ids).toEqual([A]);
    transport.opened[2]?.stream.event('robot_update', { robot_id: A, field: 'status', value: 'charging' });
    await until(() => updates.length === 2);
    release();
    expect(transport.opened[2]?.signal.aborted).toBe(true);
  });

  it('asks for a resync after every reconnect but not on the first connection, and on a resync frame without dropping the stream', async () => {
    const transport = fakeTransport();
    const updates: RobotUpdate[] = [];
    const resyncs: (readonly string[])[] = [];
    const hub = new RobotStreamHub({
      connect: transport.connect,
      onUpdate: (update) => updates.push(update),
      onResync: (ids) => resyncs.push(ids),
      initialDelayMs: 5,
      maxDelayMs: 20,
    });
    const release = hub.subscribe([B, A]);
    await until(() => transport.opened.length === 1);
    transport.opened[0]?.stream.event('robot_update', { robot_id: A, field: 'mode', value: 1 });
    await until(() => updates.length === 1);
    expect(resyncs).toEqual([]);

    transport.opened[0]?.stream.push('id: 12\nevent: resync\ndata: {"reason":"horizon"}\n\n');
    await until(() => resyncs.length === 1);
    expect(resyncs[0]).toEqual([A, B]);
    transport.opened[0]?.stream.event('robot_update', { robot_id: A, field: 'mode', value: 2 });
    await until(() => updates.length === 2);
    expect(transport.opened).toHaveLength(1);

    // A drop, then a refusal: one resync, once a connection opens again (none for the refused attempt).
    transport.refuse.next = 1;
    transport.opened[0]?.stream.end();
    await until(() => transport.opened.length === 3 && resyncs.length === 2);
    expect(transport.opened[2]?.lastEventId).toBe('12');
    release();
    expect(resyncs).toHaveLength(2);
  });

  it('closes its streams when the page is hidden (back/forward cache) and reopens them, resynced, when it shows again', async () => {
    const transport = fakeTransport();
    const resyncs: (readonly string[])[] = [];
    const page = new EventTarget();
    const updates: RobotUpdate[] = [];
    const hub = new RobotStreamHub({ connect: transport.connect, onUpdate: (update) => updates.push(update), onResync: (ids) => resyncs.push(ids), initialDelayMs: 5, maxDelayMs: 20, lifecycle: page });
    const release = hub.subscribe([A]);
    await until(() => transport.opened.length === 1);
    transport.opened[0]?.stream.push(`id: 7\nevent: robot_update\ndata: ${JSON.stringify({ robot_id: A, field: 'mode', value: 1 })}\n\n`);
    await until(() => updates.length === 1);

    // Hidden: the connection is closed (its socket freed for the next page) and stays closed.
    page.dispatchEvent(new Event('pagehide'));
    await until(() => transport.opened[0]?.signal.aborted === true && transport.opened[0].stream.cancelled);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(transport.opened).toHaveLength(1);
    expect(hub.snapshot()).toEqual(new Map([[A, 1]]));

    // Shown again from the cache: reopened at once from the last id, and what it missed refetched.
    page.dispatchEvent(new Event('pageshow'));
    await until(() => transport.opened.length === 2 && resyncs.length === 1);
    expect(transport.opened[1]?.lastEventId).toBe('7');
    expect(transport.opened[1]?.signal.aborted).toBe(false);
    release();
    expect(transport.opened[1]?.signal.aborted).toBe(true);
  });

  it('asks for a resync when the first connection opens only after a refused attempt', async () => {
    const transport = fakeTransport();
    const resyncs: (readonly string[])[] = [];
    transport.refuse.next = 1;
    const hub = new RobotStreamHub({ connect: transport.connect, onUpdate: () => undefined, onResync: (ids) => resyncs.push(ids), initialDelayMs: 5 });
    const release = hub.subscribe([A]);
    await until(() => resyncs.length === 1);
    expect(transport.opened).toHaveLength(2);
    release();
  });

  it('backs off from a server that accepts the stream and drops it at once, rather than reconnecting and refetching every second', async () => {
    vi.useFakeTimers();
    const transport = fakeTransport();
    const resyncs: (readonly string[])[] = [];
    const hub = new RobotStreamHub({
      connect: (ids, lastEventId, signal) => {
        const response = transport.connect(ids, lastEventId, signal);
        transport.opened.at(-1)?.stream.end();
        return response;
      },
      onUpdate: () => undefined,
      onResync: (ids) => resyncs.push(ids),
      initialDelayMs: 1000,
      maxDelayMs: 30_000,
      // Every draw at the top of its window: the longest waits the schedule allows.
      random: () => 1,
    });
    const release = hub.subscribe([A]);
    await vi.advanceTimersByTimeAsync(0);
    expect(transport.opened).toHaveLength(1);
    // Waits of at most 1, 2, 4 and 8 s, here the most: five connections in 15 s, not one a second.
    await vi.advanceTimersByTimeAsync(15_000);
    expect(transport.opened).toHaveLength(5);
    expect(resyncs).toHaveLength(4);
    release();
  });

  it('starts again from the first delay after a connection that stayed open', async () => {
    vi.useFakeTimers();
    const transport = fakeTransport();
    const hub = new RobotStreamHub({ connect: transport.connect, onUpdate: () => undefined, initialDelayMs: 1000, maxDelayMs: 30_000, random: () => 1 });
    const release = hub.subscribe([A]);
    await vi.advanceTimersByTimeAsync(0);
    transport.opened[0]?.stream.end();
    await vi.advanceTimersByTimeAsync(1000);
    // The second connection drops after 1 s: the next wait doubles.
    expect(transport.opened).toHaveLength(2);
    transport.opened[1]?.stream.end();
    await vi.advanceTimersByTimeAsync(1999);
    expect(transport.opened).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(transport.opened).toHaveLength(3);
    // The third lives a minute: after it the wait is 1 s again.
    await vi.advanceTimersByTimeAsync(60_000);
    transport.opened[2]?.stream.end();
    await vi.advanceTimersByTimeAsync(1000);
    expect(transport.opened).toHaveLength(4);
    release();
  });
});

