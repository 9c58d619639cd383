import { RuntimeConfig, SessionUser, TokenResponse, getMyProfile, postLogout, postRevoke, postToken } from '@uvd/contracts';
import type { Role } from '@uvd/contracts';
import { SESSION_KEYS } from '../lib/storage.ts';
import type { FakeNetwork } from './fake-network.ts';

/** jsdom's origin; the embedded server's layout (`/api`, `/idp`) on it. */
export const ORIGIN = 'http://localhost:3000';

/** A P-256 public key (65 bytes, uncompressed), base64url: what /config.json serves as the VAPID key. */
export const VAPID_PUBLIC_KEY = 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM';

export const testConfig = (overrides: Partial<RuntimeConfig> = {}): RuntimeConfig => {
  const api = `${ORIGIN}/api`;
  return RuntimeConfig.parse({
    variant: 'disinfection',
    clientId: 'uvd-console',
    identity: `${ORIGIN}/idp`,
    backends: { jobs: api, action: api, command: api, rooms: api, logs: api, logistics: api, robots: api, users: api, notifications: api },
    tokenRefreshMs: 890_000,
    vapidPublicKey: VAPID_PUBLIC_KEY,
    ...overrides,
  });
};

let issued = 0;
/** A token endpoint reply as the identity provider sends it (each one with fresh token strings). */
export const tokenReply = (): TokenResponse => {
  issued += 1;
  return TokenResponse.parse({
    access_token: `access-${issued}`,
    expires_in: 900,
    refresh_expires_in: 0,
    refresh_token: `refresh-${issued}`,
    token_type: 'Bearer',
    id_token: `id-${issued}`,
    'not-before-policy': 0,
    session_state: `session-${issued}`,
    scope: 'openid offline_access',
  });
};

export const sessionUser = (roles: Role[] = ['done-teleoperator'], overrides: Partial<SessionUser> = {}): SessionUser =>
  SessionUser.parse({
    sub: '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f',
    roles,
    realm_access: { roles },
    language: 'EN',
    timezone: 'Europe/Helsinki',
    name: 'Olivia Operator',
    given_name: 'Olivia',
    family_name: 'Operator',
    email: 'olivia@demo.test',
    groups: ['Ward A'],
    username: 'olivia',
    realm: 'demo',
    ...overrides,
  });

/** The identity provider and /user/my-profile answering as for a valid account with these roles. */
export const fakeIdentity = (network: FakeNetwork, roles: Role[] = ['done-teleoperator']): FakeNetwork =>
  network
    .on(postToken, () => ({ status: 200, body: tokenReply() }))
    .on(postRevoke, { status: 200, body: null })
    .on(postLogout, { status: 204 })
    .on(getMyProfile, { status: 200, body: sessionUser(roles) });

/** A session left in this tab's storage by an earlier sign-in (behaviour §3 keys). */
export const storeSession = (realm = 'demo'): void => {
  window.sessionStorage.setItem(SESSION_KEYS.accessToken, 'stored-access');
  window.sessionStorage.setItem(SESSION_KEYS.refreshToken, 'stored-refresh');
  window.sessionStorage.setItem(SESSION_KEYS.realm, realm);
};
