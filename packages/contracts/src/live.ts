// Contracts of the live streams (behaviour §7 "Live streams"): server-sent events read with the bearer header.
import { z } from 'zod';
import { Id } from './common.ts';
import { defineRoute } from './route.ts';

/** Event names of the three streams of behaviour §7. */
export const LiveEventType = z.enum(['job_change', 'action_change', 'robot_update', 'delivery_change']);
export type LiveEventType = z.infer<typeof LiveEventType>;

/**
 * Sent on any of the three streams when the server cannot replay what the client missed: the client's
 * Last-Event-ID is older than the replay horizon, or this server process lost its database notifications for a
 * while (events and telemetry in between may be gone). The client refetches what it shows (lists, robots), then
 * keeps reading the same stream; the frame carries an `id:` so a later reconnect resumes after it.
 */
export const RESYNC_EVENT = 'resync';
export const ResyncPayload = z.object({
  reason: z.enum(['horizon', 'database']),
});
export type ResyncPayload = z.infer<typeof ResyncPayload>;

/**
 * An id list of a stream query: repeated (`job_list=a&job_list=b`), comma-separated (`job_list=a,b`) or both.
 * An empty list means every item the caller may see, and so does a list left out: the default (not only the
 * preprocess) is what marks the parameter optional in the OpenAPI document.
 */
export const commaIdListQuery = <T extends z.ZodType>(item: T) =>
  z.preprocess((value: unknown): unknown => {
    if (value === undefined) return [];
    const values: unknown[] = Array.isArray(value) ? value : [value];
    return values.flatMap((entry) =>
      typeof entry === 'string'
        ? entry
            .split(',')
            .map((part) => part.trim())
            .filter((part) => part !== '')
        : [entry],
    );
  }, z.array(item)).default([]);

/** The last event id a client saw: a non-negative integer (the event log's bigserial id). */
export const LastEventId = z.coerce.number().int().min(0);

/**
 * `last_event_id` stands in for the `Last-Event-ID` header for EventSource polyfills that cannot set it;
 * the header wins when both are sent.
 */
export const JobStreamQuery = z.object({
  job_list: commaIdListQuery(Id),
  last_event_id: LastEventId.optional(),
});
export type JobStreamQuery = z.infer<typeof JobStreamQuery>;

/** The reply is `text/event-stream`, not JSON: this schema only documents it. */
export const EventStreamReply = z
  .string()
  .describe(
    'text/event-stream: frames "id: <event id>", "event: <type>", "data: <JSON payload>", and ": ping" heartbeat comments',
  );

export const streamJobs = defineRoute({
  method: 'GET',
  path: '/jobs/v2/jobs/stream',
  summary:
    'Live job changes (job_change) of the listed jobs, or of every job the caller may see when job_list is empty; replays after Last-Event-ID',
  tags: ['jobs', 'live'],
  querystring: JobStreamQuery,
  response: { 200: EventStreamReply },
  produces: 'text/event-stream',
});

/** One frame of a `text/event-stream`, as the HTML standard's event stream interpretation defines it. */
export interface SseFrame {
  /** The `id:` field of the frame, if it carried one. */
  id: string | undefined;
  /** The `event:` field; `message` when absent. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** Comment lines (`: ping`), without the leading colon and space. */
  comments: string[];
  /** The `retry:` field in milliseconds, if present. */
  retry: number | undefined;
}

export interface SseParseResult {
  frames: SseFrame[];
  /** The unterminated tail, to prepend to the next chunk. */
  rest: string;
}

/**
 * Splits a chunk of an event stream into complete frames (terminated by a blank line) and the incomplete rest.
 * Shared by the web client's fetch-based reader and the tests. A frame with only comments is returned too,
 * so heartbeats can be observed.
 */
export function parseSseFrames(chunk: string): SseParseResult {
  const text = chunk.replace(/\r\n?/g, '\n');
  const frames: SseFrame[] = [];
  let start = 0;
  for (let end = text.indexOf('\n\n', start); end !== -1; end = text.indexOf('\n\n', start)) {
    const frame = parseFrame(text.slice(start, end));
    if (frame) frames.push(frame);
    start = end + 2;
  }
  return { frames, rest: text.slice(start) };
}

function parseFrame(block: string): SseFrame | undefined {
  const frame: SseFrame = { id: undefined, event: 'message', data: '', comments: [], retry: undefined };
  const data: string[] = [];
  let hasContent = false;
  for (const line of block.split('\n')) {
    if (line === '') continue;
    hasContent = true;
    if (line.startsWith(':')) {
      frame.comments.push(line.slice(1).replace(/^ /, ''));
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value);
  }
  frame.data = data.join('\n');
  return hasContent ? frame : undefined;
}
