/**
 * The demo's API client against a real server (the server's in-process test harness, imported by path from this
 * test only) behind a small HTTP front that answers 503 with Retry-After, as the server does while it sheds load.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAdminRobots, RobotList } from '@uvd/contracts';
import { startTestServer, type TestServer } from '../../../server/src/testing/harness.ts';
import { ApiCallError, ApiClient } from './api-client.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** Answers the first `busy` requests with 503 (Retry-After: 1), then passes requests on to the server. */
async function busyFront(busy: number): Promise<{ url: string; refused: () => number; close: () => Promise<void> }> {
  let refused = 0;
  const front: Server = createServer((request, response) => {
    if (refused < busy) {
      refused += 1;
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end(JSON.stringify({ error: 'overloaded', message: 'busy' }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = new Headers();
      for (const name of ['authorization', 'content-type']) {
        const value = request.headers[name];
        if (typeof value === 'string') headers.set(name, value);
      }
      void fetch(`${server.url}${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }).then(async (answer) => {
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused: () => refused,
    close: () => new Promise((resolve) => front.close(() => { resolve(); })),
  };
}

describe('the demo API client', () => {
  it('waits for Retry-After and tries again while the server answers 503, and gets the reply', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const front = await busyFront(2);
    try {
      const api = new ApiClient(front.url, { organization: orgId, username: admin.username, password: admin.password });
      const started = Date.now();
      const robots = await api.call(getAdminRobots, RobotList);
      expect(robots).toEqual({ count: 0, payload: [] });
      expect(front.refused()).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    } finally {
      await front.close();
    }
  });

  it('gives up after a few attempts with the status of the last reply', async () => {
    const front = await busyFront(100);
    try {
      const api = new ApiClient(front.url, { organization: 'nobody', username: 'a', password: 'b' });
      const error = await api.signIn().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiCallError);
      expect((error as ApiCallError).status).toBe(503);
      expect(front.refused()).toBe(5);
    } finally {
      await front.close();
    }
  }, 20_000);
});
