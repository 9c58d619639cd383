import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, RuntimeConfig } from '@uvd/contracts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { NOT_BUILT_MESSAGE, resolveWebDist } from './spa.ts';

const INDEX_HTML = '<!doctype html><html><head><script type="module" src="/assets/index-Bx9f3k2A.js"></script></head><body><div id="root"></div></body></html>';
const APP_JS = 'console.log("the console");'.repeat(50);
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** A request with its path sent exactly as written (fetch would normalize `..` away). */
function rawGet(baseUrl: string, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: rawPath, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let tempDir: string;
let built: TestServer;
let unbuilt: TestServer;

beforeAll(async () => {
  tempDir = await mkdtemp(path.join(tmpdir(), 'uvd-spa-'));
  const dist = path.join(tempDir, 'dist');
  await mkdir(path.join(dist, 'assets'), { recursive: true });
  await writeFile(path.join(dist, 'index.html'), INDEX_HTML);
  await writeFile(path.join(dist, 'assets', 'index-Bx9f3k2A.js'), APP_JS);
  await writeFile(path.join(dist, 'assets', 'index-Bx9f3k2A.js.gz'), gzipSync(APP_JS));
  await writeFile(path.join(dist, 'assets', 'index-C2k1aa9Q.css'), 'body{margin:0}');
  await writeFile(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(dist, '.env'), 'SECRET=1');
  await writeFile(path.join(tempDir, 'outside.txt'), 'outside the dist folder');

  // The web dist is configuration (WEB_DIST); each server keeps the folder it was built with.
  built = await startTestServer({ webDist: dist });
  unbuilt = await startTestServer({ webDist: path.join(tempDir, 'not-built') });
});

afterAll(async () => {
  await built.close();
  await unbuilt.close();
  await rm(tempDir, { recursive: true, force: true });
});

describe('the built web console', () => {
  it('serves index.html at / and revalidates it on every load', async () => {
    const response = await built.request<string>('GET', '/', { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.body).toBe(INDEX_HTML);
  });

  it('answers any page a browser navigates to with index.html (history fallback)', async () => {
    for (const page of ['/jobs', '/job/4b1e6a8e-0f0e-4a55-9d59-0c2b1f3c2a10', '/admin', '/no/such/page', '/jobs?status=Completed&offset=20']) {
      const response = await built.request<string>('GET', page, { headers: HTML });
      expect(response.status, page).toBe(200);
      expect(response.headers.get('cache-control'), page).toBe('no-cache');
      expect(response.body, page).toBe(INDEX_HTML);
    }
  });

  it('caches hashed assets for a year with their content type', async () => {
    const response = await built.request<string>('GET', '/assets/index-C2k1aa9Q.css');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/css/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.body).toBe('body{margin:0}');
  });

  it('serves the precompressed file to a browser that accepts it', async () => {
    const gzipped = await built.request<string>('GET', '/assets/index-Bx9f3k2A.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('content-type')).toMatch(/javascript/);
    expect(gzipped.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(gzipped.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // fetch decodes the gzip: the script arrives intact.
    expect(gzipped.body).toBe(APP_JS);

    const plain = await built.request<string>('GET', '/assets/index-Bx9f3k2A.js', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.body).toBe(APP_JS);
  });

  it('revalidates unhashed files such as the favicon', async () => {
    const response = await built.request<string>('GET', '/favicon.svg');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers a missing asset with a 404, never with index.html as a script', async () => {
    const response = await built.request('GET', '/assets/index-OLDBUILD.js', { headers: { accept: '*/*' } });
    expect(response.status).toBe(404);
    expect(ApiError.parse(response.body).error).toBe('not_found');
    const navigated = await built.request('GET', '/assets/index-OLDBUILD.js', { headers: HTML });
    expect(navigated.status).toBe(404);
  });

  it('keeps JSON 404s for unknown API and identity paths, even when a browser asks for HTML', async () => {
    for (const target of ['/api/no-such-thing', '/api', '/idp/no-such-thing', '/api/jobs/v2/nothing-here']) {
      const response = await built.request('GET', target, { headers: HTML });
      expect(response.status, target).toBe(404);
      expect(response.headers.get('content-type'), target).toMatch(/application\/json/);
      expect(ApiError.parse(response.body), target).toEqual({ error: 'not_found', message: `No route GET ${target}.` });
    }
  });

  it('leaves the system routes and the API as they are', async () => {
    const health = await built.request('GET', '/healthz', { headers: HTML });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok' });
    const config = await built.request('GET', '/config.json', { headers: HTML });
    expect(config.status).toBe(200);
    expect(RuntimeConfig.parse(config.body).clientId).toBe('uvd-console');
    const jobs = await built.request('GET', '/api/jobs/v2/jobs', { headers: HTML });
    expect(jobs.status).toBe(401);
  });

  it('does not answer requests that are not page loads with index.html', async () => {
    const json = await built.request('GET', '/jobs', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(ApiError.parse(json.body).error).toBe('not_found');
    const post = await built.request('POST', '/jobs', { headers: HTML, body: {} });
    expect(post.status).toBe(404);
    expect(ApiError.parse(post.body).error).toBe('not_found');
  });

  it('serves no file outside the dist folder and no hidden file', async () => {
    for (const rawPath of ['/../outside.txt', '/%2e%2e/outside.txt', '/assets/..%2f..%2foutside.txt', '/.env', '/%2eenv']) {
      const response = await rawGet(built.url, rawPath, HTML);
      expect(response.body, rawPath).not.toContain('outside the dist folder');
      expect(response.body, rawPath).not.toContain('SECRET');
    }
  });

  it('answers HEAD like GET without a body', async () => {
    const response = await built.request<string>('HEAD', '/jobs', { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.body).toBe('');
  });
});

describe('the web console before it is built', () => {
  it('answers / in a browser with a page saying how to build it', async () => {
    const response = await unbuilt.request<string>('GET', '/', { headers: HTML });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toContain('The web console is not built');
    expect(response.body).toContain('npm run build');
  });

  it('answers other clients with the error shape and the same advice', async () => {
    for (const target of ['/', '/index.html']) {
      const response = await unbuilt.request('GET', target, { headers: { accept: 'application/json' } });
      expect(response.status, target).toBe(503);
      expect(ApiError.parse(response.body), target).toEqual({ error: 'web_not_built', message: NOT_BUILT_MESSAGE });
    }
  });

  it('says so on deep links too, while the API keeps working', async () => {
    const page = await unbuilt.request<string>('GET', '/jobs', { headers: HTML });
    expect(page.status).toBe(503);
    expect(page.body).toContain('npm run build');
    const health = await unbuilt.request('GET', '/healthz');
    expect(health.status).toBe(200);
    const api = await unbuilt.request('GET', '/api/no-such-thing', { headers: HTML });
    expect(api.status).toBe(404);
  });
});

describe('resolveWebDist', () => {
  it('uses WEB_DIST, relative to the working directory, else apps/web/dist', () => {
    expect(resolveWebDist({ WEB_DIST: '/srv/console' })).toBe('/srv/console');
    expect(resolveWebDist({ WEB_DIST: 'public' })).toBe(path.resolve('public'));
    expect(resolveWebDist({}).replaceAll('\\', '/')).toMatch(/apps\/web\/dist\/?$/);
  });
});
