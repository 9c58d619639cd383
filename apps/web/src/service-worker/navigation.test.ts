import { describe, expect, it } from 'vitest';
import { isShellNavigation } from './navigation.ts';

describe('the offline shell', () => {
  it("answers the console's addresses, and leaves the server's own to the network", () => {
    for (const path of ['/', '/jobs', '/job/4f1c', '/logs', '/admin', '/auth']) expect(isShellNavigation(path)).toBe(true);
    for (const path of ['/api', '/api/jobs/jobs', '/idp/realms/demo/protocol/openid-connect/auth', '/config.json', '/healthz']) {
      expect(isShellNavigation(path)).toBe(false);
    }
  });
});
