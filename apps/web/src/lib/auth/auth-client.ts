import { getMyProfile, postLogout, postRevoke, postToken } from '@uvd/contracts';
import type { SessionUser, TokenResponse } from '@uvd/contracts';
import { z } from 'zod';
import type { RuntimeConfig } from '../../config/runtime-config.ts';
import type { ApiClient, HttpInstance } from '../api-client.ts';
import { sendRequest } from '../api-client.ts';
import { toApiRequestError } from '../api-error.ts';
import type { ApiRequestError } from '../api-error.ts';
import { saveOrganization } from '../storage.ts';
import type { TokenStore } from '../storage.ts';
import type { SessionMirror } from './session-mirror.ts';
import { accessTokenExpiry } from './token-expiry.ts';

/**
 * Spec §4 "Auth: initializing and fetching, then authenticated or not". `initializing` restores a stored session
 * at start-up; `fetching` is a sign-in in flight.
 */
export type AuthStatus = 'initializing' | 'fetching' | 'authenticated' | 'unauthenticated';
export interface AuthState {
  status: AuthStatus;
  user: SessionUser | null;
}

/** Spec §5 sign-in rules; messages are translation keys. The realm is the organization, lowercase. */
export const SignInInput = z.object({
  organization: z.string().trim().toLowerCase().min(1, 'validation.required'),
  username: z.string().trim().min(1, 'validation.required'),
  password: z.string().trim().min(1, 'validation.required'),
});
export type SignInInput = z.input<typeof SignInInput>;

export interface AuthClientOptions {
  config: RuntimeConfig;
  api: ApiClient;
  /** HTTP client on the identity provider's base address. */
  identity: HttpInstance;
  tokens: TokenStore;
  localStorage?: Storage;
  /** Spec §4: "a failed refresh calls an error callback". */
  onRefreshError?: (error: ApiRequestError) => void;
  /** Spec §7: when unregistering the device fails at logout, a generic error shows and logout proceeds. */
  onDeviceRemovalError?: () => void;
  /**
   * Spec §7: this device stops receiving the user's pushes (DELETE /remove, lib/push/remove-push-device.ts) while
   * the session's token still works; rejects when the server could not be told.
   */
  removePushDevice?: (userId: string) => Promise<void>;
  /** The session as the service worker sees it (lib/auth/session-mirror.ts). */
  sessionMirror?: SessionMirror;
}

const quietly = (promise: Promise<unknown>): Promise<void> => promise.then(
  () => undefined,
  () => undefined,
);

export class AuthClient {
  private state: AuthState = { status: 'initializing', user: null };
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private initialization: Promise<void> | null = null;

  constructor(private readonly options: AuthClientOptions) {}

  readonly getSnapshot = (): AuthState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Restores the session of this tab, if any; a failure clears the stored tokens (spec §4). Runs once. */
  initialize(): Promise<void> {
    this.initialization ??= this.restore();
    return this.initialization;
  }

  /** Password grant, then the session user. A failure clears the stored tokens and rethrows (spec §4). */
  async login(input: SignInInput): Promise<SessionUser> {
    const { organization, username, password } = SignInInput.parse(input);
    this.stopTimer();
    this.set({ status: 'fetching', user: null });
    try {
      const tokens = await sendRequest(this.options.identity, postToken, {
        params: { organization },
        query: { scope: 'offline_access' },
        body: { client_id: this.options.config.clientId, username, password, grant_type: 'password', scope: 'openid' },
        form: true,
      });
      this.store(organization, tokens);
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
        const organization = stored.realm;
        const client_id = this.options.config.clientId;
        // Each step is best effort: the session ends on this device even when the provider cannot be reached.
        await quietly(
          sendRequest(this.options.identity, postRevoke, {
            params: { organization },
            body: { client_id, token: stored.accessToken, token_type_hint: 'access_token' },
            form: true,
          }),
        );
        await quietly(
          sendRequest(this.options.identity, postLogout, {
            params: { organization },
            body: { client_id, refresh_token: stored.refreshToken },
            form: true,
            bearer: stored.accessToken,
          }),
        );
      }
    } finally {
      this.forget();
      this.set({ status: 'unauthenticated', user: null });
    }
  }

  /** One refresh grant now (the timer calls this every `tokenRefreshMs`). */
  async refresh(): Promise<void> {
    const stored = this.options.tokens.read();
    if (!stored) {
      this.stopTimer();
      this.set({ status: 'unauthenticated', user: null });
      return;
    }
    try {
      await this.refreshGrant(stored.realm, stored.refreshToken);
    } catch (error) {
      const failure = toApiRequestError(error);
      this.options.onRefreshError?.(failure);
      // 400 is the provider saying the refresh token is dead (invalid_grant); a network failure is retried next tick.
      if (failure.status === 400) {
        this.forget();
        this.stopTimer();
        this.set({ status: 'unauthenticated', user: null });
      }
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

  private async restore(): Promise<void> {
    const stored = this.options.tokens.read();
    if (!stored) {
      this.set({ status: 'unauthenticated', user: null });
      return;
    }
    try {
      // The stored access token may have expired while the tab slept; a refresh also restarts its 15 minutes.
      await this.refreshGrant(stored.realm, stored.refreshToken);
      const user = await this.fetchUser();
      this.set({ status: 'authenticated', user });
      this.startTimer();
    } catch {
      this.forget();
      this.set({ status: 'unauthenticated', user: null });
    }
  }

  private async refreshGrant(organization: string, refreshToken: string): Promise<void> {
    const tokens = await sendRequest(this.options.identity, postToken, {
      params: { organization },
      body: { grant_type: 'refresh_token', client_id: this.options.config.clientId, refresh_token: refreshToken },
      form: true,
    });
    this.store(organization, tokens);
  }

  private store(realm: string, tokens: TokenResponse): void {
    this.options.tokens.write({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token, realm });
    // Best effort: without the mirror a notification's button opens the console instead of answering.
    void this.options.sessionMirror
      ?.write({
        accessToken: tokens.access_token,
        expiresAt: accessTokenExpiry(tokens.access_token, tokens.expires_in),
        realm,
        actionBackend: this.options.config.backends.action,
      })
      .catch(() => undefined);
  }

  /** The session ends on this device: the tab's tokens and the service worker's mirror. */
  private forget(): void {
    this.options.tokens.clear();
    void this.options.sessionMirror?.clear().catch(() => undefined);
  }

  private fetchUser(): Promise<SessionUser> {
    return this.options.api.request(getMyProfile, {});
  }

  private startTimer(): void {
    this.stopTimer();
    this.timer = setInterval(() => void this.refresh(), this.options.config.tokenRefreshMs);
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private set(state: AuthState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}
