/**
 * The server answers exactly the routes of the contracts' route table: a route registered without a table entry
 * (so neither fuzzed nor checked for tenancy) or a table entry the server lacks fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_TABLE, routeUrl } from '@uvd/contracts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

/** Routes that are no API contract: the OpenAPI viewer, CORS preflights and the web console's files. */
const NOT_CONTRACTS = [/^\/api\/docs(\/|$)/, /^\*$/, /^\/\*$/];

/** Parameter names do not matter to the router (`/jobs/:id` and `/jobs/:jobId` are one route). */
const shape = (path: string) => path.replace(/:[A-Za-z_]+(\|:[A-Za-z_]+)*/g, ':');

/** Method and path of every route in `printRoutes` (a tree whose lines hold a path fragment and the methods). */
function registeredRoutes(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    const path = `${stack.join('')}${match[2] ?? ''}`;
    stack.push(match[2] ?? '');
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) {
      // Fastify adds HEAD to every GET.
      if (method !== 'HEAD' && !NOT_CONTRACTS.some((pattern) => pattern.test(path))) routes.add(`${method} ${shape(path)}`);
    }
  }
  return routes;
}

describe('the route table', () => {
  it('holds each route once', () => {
    const keys = ROUTE_TABLE.map((entry) => `${entry.contract.method} ${shape(routeUrl(entry))}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is exactly what the server registers', () => {
    for (const entry of ROUTE_TABLE) {
      expect(server.app.hasRoute({ method: entry.contract.method, url: routeUrl(entry) }), routeUrl(entry)).toBe(true);
    }
    const table = new Set(ROUTE_TABLE.map((entry) => `${entry.contract.method} ${shape(routeUrl(entry))}`));
    const registered = registeredRoutes(server.app.printRoutes({ commonPrefix: false }));
    expect([...registered].filter((route) => !table.has(route)).sort(), 'registered but not in the route table').toEqual([]);
    expect([...table].filter((route) => !registered.has(route)).sort(), 'in the route table but not registered').toEqual([]);
  });
});
