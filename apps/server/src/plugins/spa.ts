/**
 * Serves the built web console (`apps/web/dist`) from the same origin as the API, so one process is a whole
 * deployment. Vite's hashed files under /assets never change and are cached for a year; index.html is revalidated
 * on every load so a new build reaches browsers at once. Any other GET a browser navigates to (accepts text/html)
 * gets index.html and React Router decides (history fallback). API, identity and system paths keep their JSON 404s.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '@uvd/contracts';

export interface SpaOptions {
  /** Absolute path of the built SPA (the folder holding index.html). */
  root: string;
}

export const NOT_BUILT_MESSAGE = 'The web console is not built: run npm run build (or npm start, which builds it).';

/** Paths the SPA never answers: they belong to the API, the identity provider and the system routes. */
const RESERVED_PREFIXES = ['/api/', '/idp/'];
const RESERVED_PATHS = new Set(['/api', '/idp', '/config.json', '/healthz']);
/** Vite's assetsDir: every file in it carries a content hash in its name. */
const HASHED_ASSETS = '/assets/';

/** `WEB_DIST` (absolute, or relative to the working directory), else `apps/web/dist` next to this server. */
export function resolveWebDist(env: Record<string, string | undefined> = process.env): string {
  const configured = env.WEB_DIST;
  if (configured) return path.resolve(configured);
  return fileURLToPath(new URL('../../../web/dist/', import.meta.url));
}

function isReserved(pathname: string): boolean {
  return RESERVED_PATHS.has(pathname) || RESERVED_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}

function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The file under `root` a URL path names, or undefined when it names none (or escapes root, or is hidden). */
async function fileFor(root: string, pathname: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const file = path.resolve(root, `.${decoded}`);
  if (!file.startsWith(root + path.sep)) return undefined;
  return (await isFile(file)) ? path.relative(root, file).split(path.sep).join('/') : undefined;
}

function notBuilt(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.code(503).header('cache-control', 'no-store');
  if (acceptsHtml(request)) {
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>` +
          `<body><main><h1>The web console is not built</h1><p>Run <code>npm run build</code> ` +
          `(or <code>npm start</code>, which builds it), then reload. The API is running at <a href="/api/docs">/api/docs</a>.</p></main></body></html>`,
      );
  }
  return reply.send({ error: 'web_not_built', message: NOT_BUILT_MESSAGE } satisfies ApiError);
}

export const spaPlugin: FastifyPluginAsync<SpaOptions> = async (app, { root }) => {
  const absoluteRoot = path.resolve(root);
  const indexFile = path.join(absoluteRoot, 'index.html');

  // serve: false — only reply.sendFile; the route below decides between a file, index.html and a 404, which the
  // plugin's own wildcard route cannot (it answers every miss with the app-wide JSON 404).
  await app.register(fastifyStatic, {
    root: absoluteRoot,
    serve: false,
    // Vite may emit .br/.gz next to each file (a compression plugin); served when the browser accepts them.
    preCompressed: true,
    suppressWarning: true,
  });

  const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    // Checked per request: building the SPA while the server runs needs no restart.
    if (!(await isFile(indexFile))) return notBuilt(request, reply);
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', { cacheControl: false });
  };

  const notFound = (reply: FastifyReply) => {
    reply.callNotFound();
    return reply;
  };

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    if (isReserved(pathname)) return notFound(reply);
    if (pathname === '/' || pathname === '/index.html') return sendIndex(request, reply);

    const file = await fileFor(absoluteRoot, pathname);
    if (file !== undefined) {
      if (pathname.startsWith(HASHED_ASSETS)) return reply.sendFile(file, { maxAge: '365d', immutable: true });
      // Unhashed files (favicon, manifest …) may change with any build: revalidate.
      reply.header('cache-control', 'no-cache');
      return reply.sendFile(file, { cacheControl: false });
    }
    // A missing hashed asset is a stale page asking for an old build: a 404, never index.html as JavaScript.
    if (acceptsHtml(request) && !pathname.startsWith(HASHED_ASSETS)) return sendIndex(request, reply);
    return notFound(reply);
  });
};
