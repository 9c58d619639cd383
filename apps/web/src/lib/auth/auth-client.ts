import { getMyProfile, postToken } from '@uvd/contracts';
import type { SessionUser, TokenResponse } from '@uvd/contracts';
import type { RuntimeConfig } from '../../config/runtime-config.ts';
import type { ApiClient, HttpInstance } from '../api-client.ts';
import { sendRequest } from '../api-client.ts';
import { toApiRequestError } from '../api-error.ts';
import type { ApiRequestError } from '../api-error.ts';
import { saveOrganization } from '../storage.ts';
import type { SessionTokens, TokenStore } from '../storage.ts';
import type { SessionMirror } from './session-mirror.ts';
import type { SignInInput } from './password-grant.ts';
import type { SessionTabs, TabMessage } from './session-tabs.ts';
import { accessTokenExpiry } from './token-expiry.ts';

/**
 * Behaviour §4 "Auth: initializing and fetching, then authenticated or not". `initializing` restores a stored session
 * at start-up; `fetching` is a sign-in in flight.
 */
export type AuthStatus = 'initializing' | 'fetching' | 'authenticated' | 'unauthenticated';
export interface AuthState {
  status: AuthStatus;
  user: SessionUser | null;
}


export interface AuthClientOptions {
  config: RuntimeConfig;
  api: ApiClient;
  /** HTTP client on the identity provider's base address. */
  identity: HttpInstance;
  tokens: TokenStore;
  /**
   * The session kept on this device ("Stay signed in"): local storage, which outlives the last tab. Holds the
   * offline session's tokens only while the user chose it; every rotation replaces them and sign-out clears them.
   */
  kept?: TokenStore;
  localStorage?: Storage;
  /** Called with the session user before the console shows it (sign-in, load, re-read): the profile's language. */
  onUser?: (user: SessionUser) => Promise<void>;
  /** Behaviour §4: "a failed refresh calls an error callback". */
  onRefreshError?: (error: ApiRequestError) => void;
  /** Behaviour §7: when unregistering the device fails at logout, a generic error shows and logout proceeds. */
  onDeviceRemovalError?: () => void;
  /**
   * Behaviour §7: this device stops receiving the user's pushes (DELETE /remove, lib/push/remove-push-device.ts) while
   * the session's token still works; rejects when the server could not be told.
   */
  removePushDevice?: (userId: string) => Promise<void>;
  /** The session as the service worker sees it (lib/auth/session-mirror.ts). */
  sessionMirror?: SessionMirror;
  /** The other console tabs of this browser, which share the session (lib/auth/session-tabs.ts), once loaded. */
  tabs?: Promise<SessionTabs | null> | null;
}

/** A stored access token valid at least this much longer is used as it is at load: no refresh token is spent. */
const FRESH_MS = 60_000;
/** Behaviour §9's refresh period is the token's 15 minutes minus 10 s: a restored token is refreshed as early. */
const REFRESH_AHEAD_MS = 10_000;
/** A load that could not reach the server tries again after these waits, then shows sign-in (tokens kept). */
const RESTORE_RETRY_MS = [1000, 2000, 4000, 8000];

/**
 * Only the identity provider saying the refresh token is dead ends a session (RFC 6749 §5.2 `invalid_grant`, a
 * 400): an aborted load, a network error or a 5xx leaves the tokens for the next try.
 */
const isInvalidGrant = (error: ApiRequestError): boolean => error.code === 'invalid_grant';

export class AuthClient {
  private state: AuthState = { status: 'initializing', user: null };
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private initialization: Promise<void> | null = null;

  constructor(private readonly options: AuthClientOptions) {
    this.withTabs((tabs) => {
      tabs.connect({
        tokens: options.tokens,
        signedIn: () => (this.state.status === 'authenticated' ? options.tokens.read() : null),
        rotated: () => {
          // Its next period starts now too.
          if (this.timer !== null) this.startTimer();
        },
        ended: () => {
          this.end(false);
        },
      });
    });
  }

  readonly getSnapshot = (): AuthState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Restores the session of this tab, if any; a failure clears the stored tokens (behaviour §4). Runs once. */
  initialize(): Promise<void> {
    this.initialization ??= this.restore();
    return this.initialization;
  }

  /**
   * Password grant, then the session user. A failure clears the stored tokens and rethrows (behaviour §4).
   * `staySignedIn` keeps the session on this device beyond its last tab; otherwise it ends with them.
   */
  async login(input: SignInInput, { staySignedIn = false }: { staySignedIn?: boolean } = {}): Promise<SessionUser> {
    const grant = await import('./password-grant.ts').catch((error: unknown) => {
      throw toApiRequestError(error);
    });
    const parsed = grant.SignInInput.parse(input);
    const { organization } = parsed;
    this.stopTimer();
    this.set({ status: 'fetching', user: null });
    try {
      const tokens = await grant.passwordGrant(sendRequest, this.options.identity, this.options.config.clientId, parsed);
      const session = this.store(organization, tokens, null);
      if (staySignedIn) this.options.kept?.write(session);
      else this.options.kept?.clear();
      saveOrganization(organization, this.options.localStorage);
      const user = await this.fetchUser();
      this.set({ status: 'authenticated', user });
      this.startTimer();
      return user;
    } catch (error) {
      this.forget();
      this.set({ status: 'unauthenticated', user: null });
      throw toApiRequestError(error);
    }
  }

  /** Revokes the access token and ends the session at the provider, then forgets it whatever they answered. */
  async logout(): Promise<void> {
    this.stopTimer();
    const stored = this.options.tokens.read();
    const user = this.state.user;
    try {
      if (stored && user && this.options.removePushDevice) {
        await this.options.removePushDevice(user.sub).catch(() => {
          this.options.onDeviceRemovalError?.();
        });
      }
      if (stored) {
        // Its own chunk, not in the first screen's bundle; one that cannot load still signs out on this device.
        await import('./end-session.ts').then(
          ({ endSessionAtProvider }) => endSessionAtProvider(sendRequest, this.options.identity, this.options.config.clientId, stored),
          () => undefined,
        );
      }
    } finally {
      this.end();
    }
  }

  /** One refresh grant now (the timer calls this every `tokenRefreshMs`). */
  async refresh(): Promise<void> {
    try {
      if (!(await this.refreshShared())) {
        this.stopTimer();
        this.set({ status: 'unauthenticated', user: null });
      }
    } catch (error) {
      const failure = toApiRequestError(error);
      this.options.onRefreshError?.(failure);
      // A network failure or a 5xx is retried next tick.
      if (isInvalidGrant(failure)) this.end();
    }
  }

  /** Re-reads the session user (after the settings screen saves language or timezone). */
  async reloadUser(): Promise<SessionUser> {
    const user = await this.fetchUser();
    if (this.state.status === 'authenticated') this.set({ status: 'authenticated', user });
    return user;
  }

  dispose(): void {
    this.stopTimer();
    this.listeners.clear();
  }

  /**
   * The tab's session, or another open tab's (session-tabs.ts), or the one kept on this device. A page load whose
   * access token is still good uses it and spends no refresh token: a reload, or a link clicked while a page loads,
   * then cannot lose a session.
   */
  private async restore(attempt = 0, refused = false): Promise<void> {
    let stored = this.options.tokens.read();
    if (!stored && attempt === 0) {
      stored = (await (await this.options.tabs)?.ask()) ?? this.options.kept?.read() ?? null;
      if (stored) this.options.tokens.write(stored);
    }
    if (!stored) {
      this.set({ status: 'unauthenticated', user: null });
      return;
    }
    try {
      const left = accessTokenExpiry(stored.accessToken, 0) - Date.now();
      const refresh = refused || left < FRESH_MS;
      if (refresh && !(await this.refreshShared())) {
        this.set({ status: 'unauthenticated', user: null });
        return;
      }
      const user = await this.fetchUser();
      this.set({ status: 'authenticated', user });
      // A token kept from before is refreshed shortly before it expires.
      this.startTimer(refresh ? undefined : left - REFRESH_AHEAD_MS);
    } catch (error) {
      const failure = toApiRequestError(error);
      if (isInvalidGrant(failure) || (refused && failure.status === 401)) {
        this.end();
        return;
      }
      // A token refused before it expires was revoked (the password was reset or set by an admin): the refresh token
      // decides, at once. Waiting and asking again with the same token would only keep the user on a spinner.
      if (failure.status === 401) return this.restore(attempt, true);
      const wait = RESTORE_RETRY_MS[attempt];
      if (wait === undefined) {
        // The server stayed out of reach: sign-in shows, the tokens stay for the next load.
        this.set({ status: 'unauthenticated', user: null });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
      return this.restore(attempt + 1);
    }
  }

  /**
   * A refresh grant with this tab's refresh token, one tab at a time. Another tab may have refreshed while this one
   * waited for the lock (its new pair arrived as a message): then there is nothing to spend. False when the tab
   * has no session (any more).
   */
  private async refreshShared(): Promise<boolean> {
    const before = this.options.tokens.read();
    if (!before) return false;
    const run = async () => {
      const current = this.options.tokens.read();
      if (!current) return false;
      if (current.refreshToken === before.refreshToken) await this.refreshGrant(current);
      return true;
    };
    const tabs = await this.options.tabs;
    return tabs ? tabs.exclusive(run) : run();
  }

  private async refreshGrant({ realm: organization, refreshToken }: SessionTokens): Promise<void> {
    const tokens = await sendRequest(this.options.identity, postToken, {
      params: { organization },
      body: { grant_type: 'refresh_token', client_id: this.options.config.clientId, refresh_token: refreshToken },
      form: true,
    });
    this.store(organization, tokens, refreshToken);
  }

  /**
   * `previous`: the refresh token the new pair replaces, for the other tabs holding it, and for the kept session
   * when it is that one (the spent token is worthless after the grace window).
   */
  private store(realm: string, tokens: TokenResponse, previous: string | null): SessionTokens {
    const session = { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, realm };
    this.options.tokens.write(session);
    const { kept } = this.options;
    if (kept && previous !== null && kept.read()?.refreshToken === previous) kept.write(session);
    this.post({ type: 'session', session, previous });
    // Best effort: without the mirror a notification's button opens the console instead of answering.
    void this.options.sessionMirror
      ?.write({
        accessToken: tokens.access_token,
        expiresAt: accessTokenExpiry(tokens.access_token, tokens.expires_in),
        realm,
        actionBackend: this.options.config.backends.action,
      })
      .catch(() => undefined);
    return session;
  }

  /** The session ends on this device: the tab's tokens, the kept ones, and the service worker's mirror. */
  private forget(): void {
    this.options.tokens.clear();
    this.options.kept?.clear();
    this.withTabs((tabs) => {
      tabs.release();
    });
    void this.options.sessionMirror?.clear().catch(() => undefined);
  }

  /** The session ended (logout, invalid_grant): in this tab and, unless they told us, in the tabs sharing it. */
  private end(tell = true): void {
    const stored = this.options.tokens.read();
    if (tell && stored) this.post({ type: 'ended', refreshToken: stored.refreshToken });
    this.stopTimer();
    this.forget();
    this.set({ status: 'unauthenticated', user: null });
  }

  /** Runs once the tabs' module has loaded, in the order asked. */
  private withTabs(use: (tabs: SessionTabs) => void): void {
    void this.options.tabs?.then((tabs) => {
      if (tabs) use(tabs);
    });
  }

  private post(message: TabMessage): void {
    this.withTabs((tabs) => {
      tabs.post(message);
    });
  }

  private async fetchUser(): Promise<SessionUser> {
    const user = await this.options.api.request(getMyProfile, {});
    // Best effort: a language that cannot load leaves the one shown.
    await this.options.onUser?.(user).catch(() => undefined);
    return user;
  }

  /** Every `tokenRefreshMs`; the first one after `first` when that is sooner (a token restored at load). */
  private startTimer(first?: number): void {
    this.stopTimer();
    const every = this.options.config.tokenRefreshMs;
    const tick = () => void this.refresh();
    if (first === undefined || first >= every) {
      this.timer = setInterval(tick, every);
      return;
    }
    this.timer = setTimeout(() => {
      tick();
      this.timer = setInterval(tick, every);
    }, first);
  }

  private stopTimer(): void {
    if (this.timer !== null) {
      clearInterval(this.timer);
      clearTimeout(this.timer);
    }
    this.timer = null;
  }

  private set(state: AuthState): void {
    this.state = state;
    // New tabs ask for the session only while a tab holds one.
    if (state.status === 'authenticated') {
      this.withTabs((tabs) => {
        tabs.hold();
      });
    }
    for (const listener of this.listeners) listener();
  }
}
