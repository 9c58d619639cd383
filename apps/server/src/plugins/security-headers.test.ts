import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';

let tempDir: string;
let server: TestServer;
let admin: TestUser;

beforeAll(async () => {
  tempDir = await mkdtemp(path.join(tmpdir(), 'uvd-headers-'));
  const dist = path.join(tempDir, 'dist');
  await mkdir(path.join(dist, 'assets'), { recursive: true });
  await writeFile(path.join(dist, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/index-A1.js"></script></head></html>');
  await writeFile(path.join(dist, 'assets', 'index-A1.js'), 'console.log(1);');
  await writeFile(path.join(dist, 'sw.js'), 'self.addEventListener("push", () => {});');
  server = await startTestServer({ webDist: dist });
  admin = await server.createUser(await server.createOrg(), ['done-admin']);
});
afterAll(async () => {
  await server.close();
  await rm(tempDir, { recursive: true, force: true });
});

/** The directives of a Content-Security-Policy header, by name. */
const directives = (header: string | null): Map<string, string[]> =>
  new Map(
    (header ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((tokens): tokens is [string, ...string[]] => tokens[0] !== undefined && tokens[0] !== '')
      .map(([name, ...values]) => [name, values]),
  );

const replies: { what: string; path: string; headers: Record<string, string> }[] = [
  { what: 'the SPA', path: '/jobs', headers: { accept: 'text/html' } },
  { what: 'a hashed asset', path: '/assets/index-A1.js', headers: {} },
  { what: 'the service worker', path: '/sw.js', headers: {} },
  { what: 'an API reply', path: '/api/jobs/v2/jobs', headers: {} },
  { what: 'an API error', path: '/api/no-such-route', headers: {} },
  { what: 'Swagger UI', path: '/api/docs', headers: {} },
  { what: 'the runtime config', path: '/config.json', headers: {} },
];

describe('security headers', () => {
  it.each(replies)('are on $what', async ({ path: target, headers }) => {
    const response = await fetch(`${server.url}${target}`, { headers: { ...headers, authorization: `Bearer ${admin.token}` } });
    expect(response.status).toBeLessThan(500);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBeTruthy();
    const csp = directives(response.headers.get('content-security-policy'));
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    // The floor plan is shown from a Blob URL; Bootstrap's icons are data: URLs.
    expect(csp.get('img-src')).toEqual(expect.arrayContaining(["'self'", 'data:', 'blob:']));
    expect(csp.get('worker-src')).toEqual(["'self'"]);
    expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
  });
});
