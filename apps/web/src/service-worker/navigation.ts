/**
 * Which page loads the service worker answers with the console's shell when the network fails: the console's own
 * addresses, not the server's (its API, identity provider, runtime config and health check keep their own replies,
 * as plugins/spa.ts of the server reserves them).
 */
const SERVER_PREFIXES = ['/api/', '/idp/'];
const SERVER_PATHS = new Set(['/api', '/idp', '/config.json', '/healthz']);

export const isShellNavigation = (pathname: string): boolean =>
  !SERVER_PATHS.has(pathname) && !SERVER_PREFIXES.some((prefix) => pathname.startsWith(prefix));
