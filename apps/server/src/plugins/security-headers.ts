/**
 * Security headers on every reply (@fastify/helmet): the SPA, its service worker, Swagger UI and the API alike.
 * The Content-Security-Policy is the strictest the console runs under, checked against the build:
 * - scripts only from our origin: Vite emits no inline script (index.html loads one module), the service worker
 *   is registered from the bundle, Swagger UI at /api/docs loads three script files; no eval anywhere;
 * - styles from our origin plus inline: react-toastify injects its stylesheet as a <style> element at run time
 *   (React's own style props go through the CSSOM, which CSP does not govern);
 * - images from our origin, data: (Bootstrap's and Swagger UI's CSS icons) and blob: (the floor plan is shown
 *   from a Blob URL so that a script inside the SVG never runs); fonts are the system's;
 * - fetches to our origin, and to an external identity provider when one is configured;
 * - nobody frames the console (frame-ancestors 'none', X-Frame-Options DENY): its buttons drive UV-C lamps.
 * The mobile shell runs the same build from its own origin, where this header does not reach; its API calls
 * are CORS requests, which Cross-Origin-Resource-Policy does not govern.
 * No upgrade-insecure-requests: a console on a plain-HTTP site network would lose every script.
 */
import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';

export interface SecurityHeadersOptions {
  /** Origins besides our own the console's scripts call (an external identity provider, the public address). */
  connectOrigins: readonly string[];
}

export const securityHeadersPlugin = fp<SecurityHeadersOptions>(
  async (app, { connectOrigins }) => {
    await app.register(helmet, {
      global: true,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          baseUri: ["'self'"],
          scriptSrc: ["'self'"],
          scriptSrcAttr: ["'none'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'", ...connectOrigins],
          workerSrc: ["'self'"],
          manifestSrc: ["'self'"],
          objectSrc: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      frameguard: { action: 'deny' },
    });
  },
  { name: 'security-headers' },
);

/** The origin of an address, or nothing when it is not one. */
export const originOf = (address: string | undefined): string[] => {
  if (!address) return [];
  try {
    return [new URL(address).origin];
  } catch {
    return [];
  }
};
