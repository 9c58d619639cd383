/**
 * The browsable API reference docs/operations.md points to: /api/docs answers a page whose scripts are served,
 * and the document the page loads lists the routes of the contracts (a known one here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listJobs, routeUrl, ROUTE_TABLE } from '@uvd/contracts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const get = (target: string) => fetch(new URL(target, server.url));

describe('API reference page (/api/docs)', () => {
  it('answers an HTML page whose scripts are served', async () => {
    const page = await get('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(scripts).toEqual(expect.arrayContaining([expect.stringMatching(/swagger-initializer\.js$/)]));
    for (const script of scripts) {
      const reply = await get(new URL(script, `${server.url}/api/docs/`).pathname);
      expect(reply.status, script).toBe(200);
      expect(reply.headers.get('content-type'), script).toMatch(/javascript/);
    }
  });

  it('loads the OpenAPI document, which lists a known route', async () => {
    const initializer = await (await get('/api/docs/static/swagger-initializer.js')).text();
    expect(initializer).toContain("resolveUrl('./json')");
    const reply = await get('/api/docs/json');
    expect(reply.status).toBe(200);
    const document = (await reply.json()) as { paths: Record<string, Record<string, { summary?: string }>> };
    const entry = ROUTE_TABLE.find((candidate) => candidate.contract === listJobs);
    if (!entry) throw new Error('listJobs is not in the route table');
    expect(routeUrl(entry)).toBe('/api/jobs/v2/jobs');
    expect(document.paths['/api/jobs/v2/jobs']?.get?.summary).toBe(listJobs.summary);
  });
});
