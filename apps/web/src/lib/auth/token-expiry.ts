/**
 * When an access token expires: its JWT `exp` claim (seconds), else `expires_in` seconds from now (a provider
 * whose tokens are opaque). Read without a schema library: this runs on every sign-in of the first screen.
 */
export const accessTokenExpiry = (accessToken: string, expiresInSeconds: number, now: number = Date.now()): number => {
  const payload = accessToken.split('.')[1];
  if (payload) {
    try {
      const claims: unknown = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=')));
      if (typeof claims === 'object' && claims !== null && 'exp' in claims && typeof claims.exp === 'number') return claims.exp * 1000;
    } catch {
      // Not a JWT: the reply's lifetime below.
    }
  }
  return now + expiresInSeconds * 1000;
};
