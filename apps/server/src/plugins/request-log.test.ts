import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Config } from '../config.ts';
import { RequestLogController } from './request-log.ts';

/** A Fastify app logging at `info` into memory, its request lines at `requestLevel`; the messages it logged for two requests. */
async function messagesOf(requestLevel: Config['requestLogLevel']): Promise<{ level: number; msg: string }[]> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, logController: new RequestLogController(requestLevel) });
  app.get('/fails', async () => {
    throw new Error('broken');
  });
  app.get('/ok', async () => ({ ok: true }));
  await app.inject({ method: 'GET', url: '/ok' });
  await app.inject({ method: 'GET', url: '/fails' });
  await app.close();
  return lines.map((line) => {
    const entry: unknown = JSON.parse(line);
    if (typeof entry !== 'object' || entry === null || !('level' in entry) || !('msg' in entry)) throw new Error(`not a log line: ${line}`);
    return { level: Number(entry.level), msg: String(entry.msg) };
  });
}

describe('REQUEST_LOG_LEVEL', () => {
  it('logs each request at info by default, as Fastify does', async () => {
    const messages = await messagesOf('info');
    expect(messages.filter((m) => m.msg === 'incoming request' && m.level === 30)).toHaveLength(2);
    expect(messages.filter((m) => m.msg === 'request completed' && m.level === 30)).toHaveLength(2);
  });

  it('keeps request lines out of an info log at debug, but not the error of a failed request', async () => {
    const messages = await messagesOf('debug');
    expect(messages.filter((m) => m.msg === 'incoming request' || m.msg === 'request completed')).toEqual([]);
    expect(messages).toContainEqual({ level: 50, msg: 'broken' });
  });
});
