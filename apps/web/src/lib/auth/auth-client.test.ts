import { getMyProfile, postLogout, postRevoke, postToken, removeDevice } from '@uvd/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession, testConfig, tokenReply } from '../../testing/fixtures.ts';
import { createApiClient, createHttpInstance } from '../api-client.ts';
import type { ApiRequestError } from '../api-error.ts';
import { LOCAL_KEYS, SESSION_KEYS, createTokenStore } from '../storage.ts';
import { MemoryLocks } from '../../testing/memory-locks.ts';
import { MemorySessionMirror } from '../../testing/memory-session-mirror.ts';
import { removePushDevice } from '../push/remove-push-device.ts';
import { AuthClient } from './auth-client.ts';
import type { AuthClientOptions } from './auth-client.ts';
import { createSessionTabs } from './session-tabs.ts';
import type { SessionTabs } from './session-tabs.ts';
import { accessTokenExpiry } from './token-expiry.ts';

const REFRESH_MS = 890_000;

/** A push device that registered earlier with `token` (or never did). */
class FakeDevice {
  unregistered = 0;
  constructor(public token: string | null) {}
  currentToken() {
    return Promise.resolve(this.token);
  }
  unregister() {
    this.unregistered += 1;
    this.token = null;
    return Promise.resolve();
  }
}

const setup = (
  network: FakeNetwork,
  onRefreshError?: (error: ApiRequestError) => void,
  onDeviceRemovalError?: () => void,
  extra: Pick<AuthClientOptions, 'sessionMirror'> & { device?: FakeDevice } = {},
) => {
  const config = testConfig();
  const tokens = createTokenStore(window.sessionStorage);
  const api = createApiClient(config, { fetch: network.fetch, getAccessToken: () => tokens.readAccessToken() });
  const { device, sessionMirror } = extra;
  const auth = new AuthClient({
    config,
    api,
    identity: createHttpInstance(config.identity, { fetch: network.fetch }),
    tokens,
    localStorage: window.localStorage,
    onRefreshError,
    onDeviceRemovalError,
    sessionMirror,
    removePushDevice: device && ((userId) => removePushDevice(api, device, userId)),
  });
  clients.push(auth);
  return auth;
};
const clients: AuthClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.dispose();
  vi.useRealTimers();
});

const WEB_PUSH_TOKEN = JSON.stringify({
  endpoint: 'https://push.example.test/send/1',
  expirationTime: null,
  keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: Buffer.alloc(16, 7).toString('base64url') },
});

const stored = () => ({
  access: window.sessionStorage.getItem(SESSION_KEYS.accessToken),
  refresh: window.sessionStorage.getItem(SESSION_KEYS.refreshToken),
  realm: window.sessionStorage.getItem(SESSION_KEYS.realm),
});

describe('auth client (behaviour §4)', () => {
  it('signs in with the password grant exactly as behaviour §7 says, stores the session and the organization, then is authenticated', async () => {
    const network = fakeIdentity(new FakeNetwork(), ['done-admin']);
    const auth = setup(network);
    const seen: string[] = [];
    auth.subscribe(() => seen.push(auth.getSnapshot().status));

    const user = await auth.login({ organization: '  Demo ', username: ' admin ', password: ' admin-demo-1 ' });

    expect(user.roles).toEqual(['done-admin']);
    expect(seen).toEqual(['fetching', 'authenticated']);
    const [grant] = network.callsTo(postToken);
    expect(grant?.url.pathname).toBe('/idp/realms/demo/protocol/openid-connect/token');
    expect(grant?.url.searchParams.get('scope')).toBe('offline_access');
    expect(grant?.headers.get('content-type')).toContain('application/x-www-form-urlencoded');
    expect(Object.fromEntries(grant?.form ?? [])).toEqual({
      client_id: 'uvd-console',
      username: 'admin',
      password: 'admin-demo-1',
      grant_type: 'password',
      scope: 'openid',
    });
    expect(stored().access).toMatch(/^access-/);
    expect(stored().refresh).toMatch(/^refresh-/);
    expect(stored().realm).toBe('demo');
    expect(window.localStorage.getItem(LOCAL_KEYS.organization)).toBe('demo');
    // The session user is read with the new access token.
    expect(network.callsTo(getMyProfile)[0]?.headers.get('authorization')).toBe(`Bearer ${stored().access ?? ''}`);
  });

  it('a failed sign-in clears stored tokens and ends unauthenticated', async () => {
    storeSession();
    const network = new FakeNetwork().on(postToken, { status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } });
    const auth = setup(network);

    await expect(auth.login({ organization: 'demo', username: 'admin', password: 'wrong' })).rejects.toMatchObject({
      kind: 'status',
      status: 401,
      code: 'invalid_grant',
    });
    expect(auth.getSnapshot()).toEqual({ status: 'unauthenticated', user: null });
    expect(stored()).toEqual({ access: null, refresh: null, realm: null });
  });

  it('a sign-in whose profile cannot be read also clears the tokens it just stored', async () => {
    const network = fakeIdentity(new FakeNetwork()).on(getMyProfile, { status: 401, body: { error: 'unauthorized', message: 'Token expired' } });
    const auth = setup(network);
    await expect(auth.login({ organization: 'demo', username: 'a', password: 'b' })).rejects.toMatchObject({ status: 401 });
    expect(stored().access).toBeNull();
  });

  it('restores a stored session at start: a refresh grant, then the profile', async () => {
    storeSession('demo');
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network);
    expect(auth.getSnapshot().status).toBe('initializing');
    await auth.initialize();
    expect(auth.getSnapshot().status).toBe('authenticated');
    expect(Object.fromEntries(network.callsTo(postToken)[0]?.form ?? [])).toEqual({
      grant_type: 'refresh_token',
      client_id: 'uvd-console',
      refresh_token: 'stored-refresh',
    });
    expect(stored().access).toMatch(/^access-/);
  });

  it('a failed initialization clears the stored tokens', async () => {
    storeSession();
    const network = new FakeNetwork().on(postToken, { status: 400, body: { error: 'invalid_grant', error_description: 'Session not active' } });
    const auth = setup(network);
    await auth.initialize();
    expect(auth.getSnapshot().status).toBe('unauthenticated');
    expect(stored()).toEqual({ access: null, refresh: null, realm: null });
  });

  it('without a stored session it is unauthenticated at once, with no call', async () => {
    const network = new FakeNetwork();
    const auth = setup(network);
    await auth.initialize();
    expect(auth.getSnapshot().status).toBe('unauthenticated');
    expect(network.requests).toHaveLength(0);
  });

  it('refreshes the token every tokenRefreshMs (890 000 ms) and the next calls carry the new token', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network);
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    const first = stored().access;

    await vi.advanceTimersByTimeAsync(REFRESH_MS - 1);
    expect(network.callsTo(postToken)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => {
      expect(stored().access).not.toBe(first);
    });
    const refresh = network.callsTo(postToken)[1];
    expect(refresh?.form.get('grant_type')).toBe('refresh_token');
    expect(auth.getSnapshot().status).toBe('authenticated');

    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(network.callsTo(postToken)).toHaveLength(3);
    });
  });

  it('a 400 on refresh calls the error callback, clears the token and signs out', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const errors: ApiRequestError[] = [];
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network, (error) => errors.push(error));
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    network.on(postToken, { status: 400, body: { error: 'invalid_grant', error_description: 'Token is not active' } });

    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(auth.getSnapshot().status).toBe('unauthenticated');
    });
    expect(errors.map((error) => error.status)).toEqual([400]);
    expect(stored()).toEqual({ access: null, refresh: null, realm: null });
  });

  it('a refresh lost to the network calls the error callback but keeps the session for the next tick', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const errors: ApiRequestError[] = [];
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network, (error) => errors.push(error));
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    network.on(postToken, { networkError: true }, { times: 1 });

    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(errors).toHaveLength(1);
    });
    expect(errors[0]?.kind).toBe('network');
    expect(auth.getSnapshot().status).toBe('authenticated');
    expect(stored().refresh).not.toBeNull();

    network.on(postToken, () => ({ status: 200, body: tokenReply() }));
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(network.callsTo(postToken)).toHaveLength(3);
    });
  });

  it('logout revokes the access token, ends the session with the bearer and the refresh token, then forgets it', async () => {
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network);
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    const { access, refresh } = stored();

    await auth.logout();

    const revoke = network.callsTo(postRevoke)[0];
    expect(Object.fromEntries(revoke?.form ?? [])).toEqual({ client_id: 'uvd-console', token: access, token_type_hint: 'access_token' });
    const logout = network.callsTo(postLogout)[0];
    expect(logout?.url.pathname).toBe('/idp/realms/demo/protocol/openid-connect/logout');
    expect(logout?.headers.get('authorization')).toBe(`Bearer ${access ?? ''}`);
    expect(Object.fromEntries(logout?.form ?? [])).toEqual({ client_id: 'uvd-console', refresh_token: refresh });
    expect(network.requests.slice(-2).map((request) => request.url.pathname.split('/').pop())).toEqual(['revoke', 'logout']);
    expect(stored()).toEqual({ access: null, refresh: null, realm: null });
    expect(auth.getSnapshot()).toEqual({ status: 'unauthenticated', user: null });
    // The organization stays for the next sign-in.
    expect(window.localStorage.getItem(LOCAL_KEYS.organization)).toBe('demo');
  });

  it('logout first removes this device from pushes (DELETE /remove with its current token), while the token still works, then ends its registration', async () => {
    const network = fakeIdentity(new FakeNetwork()).on(removeDevice, { status: 200, body: { data: true } });
    const device = new FakeDevice(WEB_PUSH_TOKEN);
    const auth = setup(network, undefined, undefined, { device });
    const user = await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    const { access } = stored();

    await auth.logout();

    const removal = network.callsTo(removeDevice)[0];
    expect(JSON.parse(removal?.body ?? 'null')).toEqual({ deviceToken: WEB_PUSH_TOKEN, userId: user.sub });
    expect(removal?.headers.get('authorization')).toBe(`Bearer ${access ?? ''}`);
    expect(network.requests.slice(-3).map((request) => request.url.pathname.split('/').pop())).toEqual(['remove', 'revoke', 'logout']);
    expect(device.unregistered).toBe(1);
  });

  it('logout calls no DELETE /remove for a device that never registered', async () => {
    const network = fakeIdentity(new FakeNetwork()).on(removeDevice, { status: 200, body: { data: true } });
    const auth = setup(network, undefined, undefined, { device: new FakeDevice(null) });
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    await auth.logout();
    expect(network.callsTo(removeDevice)).toHaveLength(0);
    expect(network.callsTo(postLogout)).toHaveLength(1);
  });

  it('logout proceeds with an error callback when the device cannot be unregistered (behaviour §7)', async () => {
    const network = fakeIdentity(new FakeNetwork()).on(removeDevice, { networkError: true });
    const onDeviceRemovalError = vi.fn();
    const auth = setup(network, undefined, onDeviceRemovalError, { device: new FakeDevice(WEB_PUSH_TOKEN) });
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });

    await auth.logout();

    expect(onDeviceRemovalError).toHaveBeenCalledTimes(1);
    expect(network.callsTo(postLogout)).toHaveLength(1);
    expect(auth.getSnapshot().status).toBe('unauthenticated');
  });

  it('logout signs out on this device even when the identity provider cannot be reached', async () => {
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network);
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    network.on(postRevoke, { networkError: true }).on(postLogout, { networkError: true });
    await auth.logout();
    expect(auth.getSnapshot().status).toBe('unauthenticated');
    expect(stored().access).toBeNull();
  });

  it('rejects a sign-in with an empty field before any call', async () => {
    const network = new FakeNetwork();
    const auth = setup(network);
    await expect(auth.login({ organization: ' ', username: 'a', password: 'b' })).rejects.toThrow();
    expect(network.requests).toHaveLength(0);
  });
});

describe('the session mirror for the service worker', () => {
  it('is written on sign-in and on every refresh (access token, expiry, realm, action backend), never with the refresh token', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const mirror = new MemorySessionMirror();
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network, undefined, undefined, { sessionMirror: mirror });
    const before = Date.now();

    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });

    expect(mirror.current).toEqual({
      accessToken: stored().access,
      expiresAt: expect.any(Number) as number,
      realm: 'demo',
      actionBackend: testConfig().backends.action,
    });
    // tokenReply's tokens are opaque: 900 s (expires_in) from now.
    expect(mirror.current?.expiresAt).toBeGreaterThanOrEqual(before + 900_000);
    expect(mirror.current?.expiresAt).toBeLessThanOrEqual(Date.now() + 900_000);
    expect(JSON.stringify(mirror.writes)).not.toContain('refresh-');

    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(mirror.writes).toHaveLength(2);
    });
    expect(mirror.current?.accessToken).toBe(stored().access);
    expect(mirror.writes[0]?.accessToken).not.toBe(mirror.writes[1]?.accessToken);
  });

  it('is deleted on logout, on a refused refresh and on a failed restore', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const mirror = new MemorySessionMirror();
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network, undefined, undefined, { sessionMirror: mirror });
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    await auth.logout();
    expect(mirror.current).toBeNull();

    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    expect(mirror.current).not.toBeNull();
    network.on(postToken, { status: 400, body: { error: 'invalid_grant', error_description: 'Token is not active' } });
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(auth.getSnapshot().status).toBe('unauthenticated');
    });
    expect(mirror.current).toBeNull();

    storeSession();
    const restoring = setup(network, undefined, undefined, { sessionMirror: mirror });
    await mirror.write({ accessToken: 'left-over', expiresAt: Date.now() + 60_000, realm: 'demo', actionBackend: '/api' });
    await restoring.initialize();
    expect(mirror.current).toBeNull();
  });

  it('takes the expiry from the JWT exp claim when the access token is a JWT', () => {
    const claims = Buffer.from(JSON.stringify({ sub: 'u', exp: 1_900_000_000 })).toString('base64url');
    expect(accessTokenExpiry(`eyJhbGciOiJSUzI1NiJ9.${claims}.signature`, 900, 0)).toBe(1_900_000_000_000);
    expect(accessTokenExpiry('opaque-token', 900, 1_000)).toBe(901_000);
  });
});

/** A JWT-shaped access token expiring `seconds` from now (the console reads only its `exp`). */
const accessTokenFor = (seconds: number) =>
  `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'u', exp: Math.floor(Date.now() / 1000) + seconds })).toString('base64url')}.signature`;

const storeFreshSession = (seconds = 600) => {
  storeSession();
  window.sessionStorage.setItem(SESSION_KEYS.accessToken, accessTokenFor(seconds));
};

describe('sessions survive the way people use a browser', () => {
  it('a load with a still valid access token spends no refresh token, and refreshes 10 s before it expires', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    storeFreshSession(600);
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network);
    const access = stored().access;

    await auth.initialize();

    expect(auth.getSnapshot().status).toBe('authenticated');
    expect(network.callsTo(postToken)).toHaveLength(0);
    expect(network.callsTo(getMyProfile)[0]?.headers.get('authorization')).toBe(`Bearer ${access ?? ''}`);
    expect(stored().refresh).toBe('stored-refresh');

    await vi.advanceTimersByTimeAsync(589_000);
    expect(network.callsTo(postToken)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(2000);
    await vi.waitFor(() => {
      expect(network.callsTo(postToken)).toHaveLength(1);
    });
    expect(network.callsTo(postToken)[0]?.form.get('refresh_token')).toBe('stored-refresh');
  });

  it.each([
    ['cut off (network error)', { networkError: true } as const],
    ['answered 503', { status: 503, body: { error: 'temporarily_unavailable', error_description: 'busy' } }],
    ['answered 500', { status: 500, body: { error: 'server_error', error_description: 'Internal server error.' } }],
  ])('a load whose refresh is %s keeps the stored tokens and tries again', async (_case, failure) => {
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(postToken, failure, { times: 1 });
    const auth = setup(network);

    const restoring = auth.initialize();
    await vi.waitFor(() => {
      expect(network.callsTo(postToken)).toHaveLength(1);
    });
    expect(stored().refresh).toBe('stored-refresh');
    expect(auth.getSnapshot().status).toBe('initializing');

    await restoring;
    expect(network.callsTo(postToken)).toHaveLength(2);
    expect(auth.getSnapshot().status).toBe('authenticated');
  });

  it('a load whose still valid access token the server refuses (a password reset ended the session) refreshes at once, and shows sign-in when the refresh is refused too', async () => {
    storeFreshSession(600);
    const network = fakeIdentity(new FakeNetwork())
      .on(getMyProfile, { status: 401, body: { error: 'unauthorized', message: 'The token was revoked.' } })
      .on(postToken, { status: 400, body: { error: 'invalid_grant', error_description: 'Session not active' } });
    const auth = setup(network);

    await auth.initialize();

    expect(auth.getSnapshot().status).toBe('unauthenticated');
    expect(network.callsTo(getMyProfile)).toHaveLength(1);
    expect(network.callsTo(postToken)).toHaveLength(1);
    // Asked once, with no retry waits (1 s, 2 s, 4 s, 8 s) before the sign-in shows.
    expect(stored()).toEqual({ access: null, refresh: null, realm: null });
  });

  it('a load whose access token is refused but whose refresh token is good goes on with the refreshed pair', async () => {
    storeFreshSession(600);
    const network = fakeIdentity(new FakeNetwork()).on(getMyProfile, { status: 401, body: { error: 'unauthorized', message: 'Token too old.' } }, { times: 1 });
    const auth = setup(network);

    await auth.initialize();

    expect(auth.getSnapshot().status).toBe('authenticated');
    expect(network.callsTo(postToken)).toHaveLength(1);
    expect(network.callsTo(getMyProfile)).toHaveLength(2);
    expect(stored().access).toMatch(/^access-/);
  });

  it('a refresh on the timer answered with a 400 other than invalid_grant keeps the session', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const network = fakeIdentity(new FakeNetwork());
    const auth = setup(network);
    await auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    network.on(postToken, { status: 400, body: { error: 'invalid_request', error_description: 'Missing form parameter: grant_type' } }, { times: 1 });

    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    await vi.waitFor(() => {
      expect(network.callsTo(postToken)).toHaveLength(2);
    });
    expect(auth.getSnapshot().status).toBe('authenticated');
    expect(stored().refresh).toMatch(/^refresh-/);
  });
});

describe('one session across the tabs of a browser', () => {
  const opened: SessionTabs[] = [];
  afterEach(() => {
    for (const tabs of opened.splice(0)) tabs.close();
  });

  /** A tab: its own session storage, the browser's channel and locks. */
  const tab = (network: FakeNetwork, browser: { name: string; locks: MemoryLocks }) => {
    const storage = new Map<string, string>();
    const sessionStorage: Storage = {
      get length() {
        return storage.size;
      },
      clear: () => {
        storage.clear();
      },
      getItem: (key) => storage.get(key) ?? null,
      key: (index) => [...storage.keys()][index] ?? null,
      removeItem: (key) => {
        storage.delete(key);
      },
      setItem: (key, value) => {
        storage.set(key, value);
      },
    };
    const config = testConfig();
    const tokens = createTokenStore(sessionStorage);
    const tabs = createSessionTabs(browser.name, browser.locks);
    opened.push(tabs);
    const auth = new AuthClient({
      config,
      api: createApiClient(config, { fetch: network.fetch, getAccessToken: () => tokens.readAccessToken() }),
      identity: createHttpInstance(config.identity, { fetch: network.fetch }),
      tokens,
      localStorage: window.localStorage,
      tabs: Promise.resolve(tabs),
    });
    clients.push(auth);
    return { auth, tokens };
  };
  let browsers = 0;
  const browser = () => ({ name: `uvd-session-test-${String((browsers += 1))}`, locks: new MemoryLocks() });
  /** The identity provider's JWT access tokens, valid 15 minutes. */
  const identity = () => fakeIdentity(new FakeNetwork()).on(postToken, () => ({ status: 200, body: { ...tokenReply(), access_token: accessTokenFor(900) } }));
  /** A tab signed in, then a second tab of the same browser opened. */
  const twoTabs = async (network: FakeNetwork) => {
    const shared = browser();
    const first = tab(network, shared);
    await first.auth.login({ organization: 'demo', username: 'olivia', password: 'secret' });
    const second = tab(network, shared);
    await second.auth.initialize();
    return { first, second };
  };

  it('a new tab takes the session of an open one instead of asking to sign in', async () => {
    const network = identity();
    const { first, second } = await twoTabs(network);

    expect(second.auth.getSnapshot().status).toBe('authenticated');
    expect(second.tokens.read()).toEqual(first.tokens.read());
    expect(network.callsTo(postToken)).toHaveLength(1);
  });

  it('without an open tab holding a session, a new tab shows sign-in at once', async () => {
    const network = identity();
    const lonely = tab(network, browser());
    const started = Date.now();
    await lonely.auth.initialize();
    expect(lonely.auth.getSnapshot().status).toBe('unauthenticated');
    expect(Date.now() - started).toBeLessThan(500);
    expect(network.requests).toHaveLength(0);
  });

  it('two tabs whose refresh falls due at once spend the refresh token once and both keep the new pair', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const network = identity();
    const { first, second } = await twoTabs(network);
    const spent = first.tokens.read()?.refreshToken;

    await Promise.all([first.auth.refresh(), second.auth.refresh()]);

    const refreshes = network.callsTo(postToken).filter((call) => call.form.get('grant_type') === 'refresh_token');
    expect(refreshes.map((call) => call.form.get('refresh_token'))).toEqual([spent]);
    expect(first.tokens.read()?.refreshToken).not.toBe(spent);
    expect(second.tokens.read()).toEqual(first.tokens.read());
    expect(second.auth.getSnapshot().status).toBe('authenticated');
  });

  it('a sign-out in one tab signs out the tabs sharing its session', async () => {
    const { first, second } = await twoTabs(identity());
    expect(second.auth.getSnapshot().status).toBe('authenticated');

    await first.auth.logout();

    await vi.waitFor(() => {
      expect(second.auth.getSnapshot().status).toBe('unauthenticated');
    });
    expect(second.tokens.read()).toBeNull();
  });
});
