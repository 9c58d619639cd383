/**
 * The identity backend (behaviour §7, docs/architecture.md#identity): a Keycloak-compatible subset per realm (= organization)
 * under /idp/realms/{organization}: discovery, JWKS, the token endpoint (password and refresh_token grants),
 * RFC 7009 revocation, logout and userinfo. Replies and errors follow OAuth 2.0 / OIDC, not the API's shape.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { z } from 'zod';
import {
  getCerts,
  getOpenIdConfiguration,
  getUserInfo,
  OAuthErrorCode,
  postLogout,
  postRevoke,
  postToken,
  Scope,
  type OAuthError,
  type RouteContract,
  type TokenResponse,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { FAILURE_RESET_MS, isLocked, lockAfter } from './brute-force.ts';
import { SIGNING_ALG } from './keys.ts';
import {
  invalidClient,
  invalidGrant,
  invalidRequest,
  invalidToken,
  OAuthHttpError,
  realmNotFound,
  unsupportedGrantType,
} from './oauth-error.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import {
  createSession,
  endSession,
  findLoginUser,
  findSessionSubject,
  purgeSessions,
  realmExists,
  recordLoginFailure,
  lockUser,
  resetLoginFailures,
  createRefreshExchanger,
  findReissue,
  type SubjectRow,
} from './repository.ts';
import { signAccessToken, signIdToken, signRefreshToken, verifyRefreshToken, type TokenSubject } from './tokens.ts';
import { openReply, sealReply } from './reissue.ts';
import { requireActiveUser, watchRevocations } from './revocation.ts';

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

interface IdentityRouteOptions {
  rateLimit?: { max: number; timeWindow: number };
}

/**
 * Like `lib/route.ts`'s registerRoute, for the provider's own routes: no bearer check by the auth plugin
 * (each endpoint authenticates the OAuth way), hidden from the API's OpenAPI document (OIDC discovery
 * describes them), and an optional rate limit.
 */
function identityRoute<R extends RouteContract>(
  app: FastifyInstance,
  contract: R,
  handler: (
    request: FastifyRequest & { params: Out<R['params']>; query: Out<R['querystring']>; body: Out<R['body']> },
    reply: FastifyReply,
  ) => Promise<unknown>,
  options: IdentityRouteOptions = {},
): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: contract.method,
    url: contract.path,
    schema: {
      hide: true,
      summary: contract.summary,
      tags: [...contract.tags],
      ...(contract.params ? { params: contract.params } : {}),
      ...(contract.querystring ? { querystring: contract.querystring } : {}),
      ...(contract.body ? { body: contract.body } : {}),
      response: contract.response,
    },
    config: { auth: false, ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}) },
    handler: async (request, reply) => {
      const result = await handler(request as Parameters<typeof handler>[0], reply);
      if (reply.sent) return reply;
      return reply.send(result);
    },
  });
}

/** Scopes granted: those requested in the form and in the query (behaviour §7 sends offline_access there). */
export function grantedScopes(...requested: (string | undefined)[]): Scope[] {
  const asked = new Set(requested.flatMap((scope) => scope?.split(/\s+/) ?? []));
  // Keycloak's default client scopes: profile and email are always granted.
  const granted = new Set<Scope>(['profile', 'email']);
  for (const scope of Scope.options) if (asked.has(scope)) granted.add(scope);
  return Scope.options.filter((scope) => granted.has(scope));
}

const toSubject = (row: SubjectRow): TokenSubject => ({
  userId: row.id,
  orgId: row.orgId,
  username: row.username,
  roles: row.roles,
  firstName: row.firstName,
  lastName: row.lastName,
  email: row.email,
  groups: row.groups,
});

const AccessClaims = z.object({
  iss: z.string(),
  sub: z.string(),
  sid: z.string().optional(),
  typ: z.literal('Bearer').optional(),
});

const REALM_OF_ISSUER = /\/realms\/([^/]+)$/;
/** How long ended or expired sessions are kept before the sweep drops them. */
const SESSION_GRACE_MS = 24 * 3600 * 1000;
const SWEEP_INTERVAL_MS = 3600 * 1000;
/** How long a token exchanged twice at once waits for the first exchange's reply, and how often it looks. */
const REISSUE_WAIT_MS = 5000;
const REISSUE_POLL_MS = 25;
/** Positive realm lookups are remembered briefly: refreshes then skip one query (realms are rarely deleted). */
const REALM_CACHE_MS = 10_000;

export const identityRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  const { config, keys, db } = ctx;

  // A deleted or disabled user's tokens stop working at once, on every API route and live stream.
  const revocation = { external: Boolean(config.idpIssuerBase) };
  app.addPrincipalCheck((principal, request) => requireActiveUser(db, principal, revocation, request));
  const revocations = await watchRevocations(ctx.database, {
    ...revocation,
    onError: (error, message) => {
      app.log.warn({ err: error }, message);
    },
  });
  app.addHook('onClose', () => revocations.close());

  const accessKeySet = createLocalJWKSet(keys.jwks);
  // Unknown users are checked against this hash so that they take as long as a wrong password.
  const dummyHash = hashPassword(randomBytes(16).toString('base64url'));
  dummyHash.catch(() => undefined);

  const realmSeen = new Map<string, number>();
  const requireRealm = async (orgId: string) => {
    const seen = realmSeen.get(orgId);
    if (seen !== undefined && seen > Date.now()) return;
    if (!(await realmExists(db, orgId))) throw realmNotFound();
    realmSeen.set(orgId, Date.now() + REALM_CACHE_MS);
  };

  const origin = (request: FastifyRequest) => config.publicUrl?.replace(/\/$/, '') ?? `${request.protocol}://${request.host}`;
  const issuerOf = (request: FastifyRequest, orgId: string) => `${origin(request)}${app.prefix}/realms/${orgId}`;

  const requireClient = (clientId: string | undefined) => {
    if (clientId !== config.clientId) throw invalidClient();
  };

  /** sub and sid of an access token of realm `orgId` signed by us, else undefined. */
  const verifyAccessToken = async (token: string, orgId: string) => {
    try {
      const { payload } = await jwtVerify(token, accessKeySet, { algorithms: [SIGNING_ALG], clockTolerance: 5 });
      const claims = AccessClaims.safeParse(payload);
      if (!claims.success || REALM_OF_ISSUER.exec(claims.data.iss)?.[1] !== orgId) return undefined;
      return { sub: claims.data.sub, sid: claims.data.sid };
    } catch {
      return undefined;
    }
  };

  const bearerOf = (request: FastifyRequest) => /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];

  async function issueTokens(
    request: FastifyRequest,
    subject: TokenSubject,
    session: { id: string; offline: boolean; expiresAt: Date; refreshJti: string; scopes: readonly string[]; authTime?: number },
  ): Promise<TokenResponse> {
    const issuer = issuerOf(request, subject.orgId);
    const scope = session.scopes.join(' ');
    const common = { keys, issuer, clientId: config.clientId, ttlSeconds: config.accessTokenTtlSeconds, sessionId: session.id };
    const [accessToken, refreshToken] = await Promise.all([
      signAccessToken(subject, { ...common, scope }),
      signRefreshToken(
        { jti: session.refreshJti, sid: session.id, sub: subject.userId, clientId: config.clientId, scope, offline: session.offline },
        { keys, issuer, expiresAt: session.expiresAt },
      ),
    ]);
    const idToken = session.scopes.includes('openid')
      ? await signIdToken(subject, { ...common, accessToken, authTime: session.authTime ?? Math.floor(Date.now() / 1000) })
      : undefined;
    return {
      access_token: accessToken,
      expires_in: config.accessTokenTtlSeconds,
      refresh_expires_in: Math.max(0, Math.round((session.expiresAt.getTime() - Date.now()) / 1000)),
      refresh_token: refreshToken,
      token_type: 'Bearer',
      ...(idToken ? { id_token: idToken } : {}),
      'not-before-policy': 0,
      session_state: session.id,
      scope,
    };
  }

  const refreshes = createRefreshExchanger(
    db,
    (offline) => (offline ? config.offlineTokenTtlSeconds : config.refreshTokenTtlSeconds),
    config.refreshTokenGraceSeconds,
  );
  const sessionExpiry = (offline: boolean, now: Date) =>
    new Date(now.getTime() + 1000 * (offline ? config.offlineTokenTtlSeconds : config.refreshTokenTtlSeconds));

  async function passwordGrant(
    request: FastifyRequest,
    orgId: string,
    form: { username?: string | undefined; password?: string | undefined; scope?: string | undefined },
    queryScope: string | undefined,
  ): Promise<TokenResponse> {
    // Keycloak stores and compares usernames in lowercase.
    const username = form.username?.trim().toLowerCase();
    if (!username) throw invalidRequest('Missing form parameter: username');
    if (!form.password) throw invalidRequest('Missing form parameter: password');
    const scopes = grantedScopes(form.scope, queryScope);
    const { realm, user } = await findLoginUser(db, orgId, username);
    if (!realm) throw realmNotFound();

    const now = new Date();
    const locked = user !== undefined && isLocked(user.lockedUntil, now);
    // Always one argon2 verification, whatever the case, so the answer's timing tells nothing.
    const passwordOk = await verifyPassword(user?.passwordHash ?? (await dummyHash), form.password);
    if (!user || !user.enabled || locked || !passwordOk) {
      if (user?.enabled && !locked) {
        const failures = await recordLoginFailure(db, user.id, now, FAILURE_RESET_MS);
        const until = lockAfter(failures, config.bruteForce, now);
        if (until) {
          await lockUser(db, user.id, until);
          request.log.warn({ userId: user.id, orgId, failures, until }, 'login temporarily refused after repeated failures');
        }
      }
      throw invalidGrant('Invalid user credentials');
    }
    if (user.failedLogins > 0 || user.lockedUntil) await resetLoginFailures(db, user.id);

    const offline = scopes.includes('offline_access');
    const expiresAt = sessionExpiry(offline, now);
    const refreshJti = randomUUID();
    const sessionId = await createSession(db, { orgId, userId: user.id, offline, expiresAt, refreshJti });
    return issueTokens(request, toSubject(user), {
      id: sessionId,
      offline,
      expiresAt,
      refreshJti,
      scopes,
      authTime: Math.floor(now.getTime() / 1000),
    });
  }

  async function refreshGrant(request: FastifyRequest, orgId: string, refreshToken: string | undefined): Promise<TokenResponse> {
    if (!refreshToken) throw invalidRequest('Missing form parameter: refresh_token');
    const claims = await verifyRefreshToken(refreshToken, keys);
    if (!claims || claims.realm !== orgId) throw invalidGrant('Invalid refresh token');
    if (claims.clientId !== config.clientId) throw invalidGrant("Invalid refresh token. Token client and authorized client don't match");
    await requireRealm(orgId);

    const refreshJti = randomUUID();
    const outcome = await refreshes.exchange({ jti: claims.jti, nextJti: refreshJti, sessionId: claims.sid, orgId });
    switch (outcome.kind) {
      case 'unknown':
        throw invalidGrant('Invalid refresh token');
      case 'reused':
        request.log.warn({ sessionId: claims.sid, orgId }, 'refresh token reused: session ended');
        throw invalidGrant('Maximum allowed refresh token reuse exceeded');
      case 'inactive':
        throw invalidGrant('Session not active');
      case 'grace':
        return reissue(refreshToken, claims.jti, claims.sid, orgId);
      case 'ok': {
        const reply = await issueTokens(request, toSubject(outcome.subject), {
          id: claims.sid,
          offline: outcome.offline,
          expiresAt: outcome.expiresAt,
          refreshJti,
          scopes: claims.scope.split(' ').filter(Boolean),
        });
        // Kept before it is sent, so whoever presents this token again within the grace window finds it.
        if (config.refreshTokenGraceSeconds > 0) await refreshes.keepReply(claims.jti, sealReply(reply, refreshToken, keys.refreshSecret));
        return reply;
      }
    }
  }

  /**
   * The reply the first exchange of `refreshToken` answered. That exchange may still be signing (two requests
   * of one token a few milliseconds apart), so its reply is waited for briefly; one that never comes (its process
   * died in between) is a 503, retried by the client, and once the grace window has passed the token ends its
   * session like any replayed one.
   */
  async function reissue(refreshToken: string, jti: string, sessionId: string, orgId: string): Promise<TokenResponse> {
    const deadline = Date.now() + REISSUE_WAIT_MS;
    for (;;) {
      const sealed = await findReissue(db, jti, sessionId);
      if (sealed !== undefined) {
        const reply = openReply(sealed, refreshToken, keys.refreshSecret);
        if (reply) return reply;
        // Sealed for another token string with the same jti: only this provider could have signed one.
        await endSession(db, sessionId, orgId, new Date());
        throw invalidGrant('Maximum allowed refresh token reuse exceeded');
      }
      if (Date.now() >= deadline) {
        throw new OAuthHttpError(503, 'temporarily_unavailable', 'The token is being refreshed, retry.', { 'retry-after': '1' });
      }
      await new Promise((resolve) => setTimeout(resolve, REISSUE_POLL_MS));
    }
  }

  // OAuth-shaped errors for every route of this plugin (encapsulated: the API keeps its own shape).
  app.setErrorHandler<FastifyError | OAuthHttpError | Error>((error, request, reply) => {
    if (error instanceof OAuthHttpError) return reply.code(error.statusCode).headers(error.headers).send(error.body);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issue = error.validation[0];
      const field = issue?.instancePath.replace(/^\//, '').replaceAll('/', '.') || error.validationContext || 'request';
      return reply
        .code(400)
        .send({ error: OAuthErrorCode.invalidRequest, error_description: `Invalid parameter: ${field}: ${issue?.message ?? 'invalid'}` } satisfies OAuthError);
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    // A server shedding load says so (503 with the Retry-After already set), so clients retry instead of failing:
    // RFC 6749 §4.1.2.1 names that condition temporarily_unavailable.
    if (status === 503) {
      return reply.code(503).send({ error: 'temporarily_unavailable', error_description: error.message } satisfies OAuthError);
    }
    if (status >= 500) {
      request.log.error({ err: error }, 'identity provider error');
      return reply.code(500).send({ error: OAuthErrorCode.serverError, error_description: 'Internal server error.' } satisfies OAuthError);
    }
    const code = status === 429 ? OAuthErrorCode.rateLimited : OAuthErrorCode.invalidRequest;
    return reply.code(status).send({ error: code, error_description: error.message } satisfies OAuthError);
  });

  const limit = config.tokenRateLimitPerMinute;
  if (limit > 0) {
    await app.register(rateLimit, {
      global: false,
      // After parsing, so that refreshes (which need a valid token and cannot guess passwords) are not
      // counted: a hospital behind one address refreshes every 15 minutes per user.
      hook: 'preHandler',
      allowList: (request) => {
        const body: unknown = request.body;
        return typeof body === 'object' && body !== null && 'grant_type' in body && body.grant_type === 'refresh_token';
      },
      errorResponseBuilder: (_request, context) =>
        new OAuthHttpError(429, OAuthErrorCode.rateLimited, `Too many token requests from this address, retry in ${context.after}.`),
    });
  }

  identityRoute(app, getOpenIdConfiguration, async (request) => {
    const orgId = request.params.organization;
    await requireRealm(orgId);
    const issuer = issuerOf(request, orgId);
    const oidc = `${issuer}/protocol/openid-connect`;
    return {
      issuer,
      token_endpoint: `${oidc}/token`,
      revocation_endpoint: `${oidc}/revoke`,
      end_session_endpoint: `${oidc}/logout`,
      userinfo_endpoint: `${oidc}/userinfo`,
      jwks_uri: `${oidc}/certs`,
      grant_types_supported: ['password', 'refresh_token'],
      // No browser flows: the console signs in with the password grant (behaviour §7).
      response_types_supported: [],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [SIGNING_ALG],
      userinfo_signing_alg_values_supported: ['none'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...Scope.options],
      claims_supported: [
        'sub',
        'iss',
        'aud',
        'exp',
        'iat',
        'auth_time',
        'sid',
        'name',
        'given_name',
        'family_name',
        'preferred_username',
        'email',
        'realm_access',
        'groups',
      ],
    };
  });

  identityRoute(app, getCerts, async (request) => {
    await requireRealm(request.params.organization);
    return keys.jwks;
  });

  identityRoute(
    app,
    postToken,
    async (request) => {
      const orgId = request.params.organization;
      const form = request.body;
      await requireRealm(orgId);
      requireClient(form.client_id);
      switch (form.grant_type) {
        case undefined:
        case '':
          throw invalidRequest('Missing form parameter: grant_type');
        case 'password':
          return passwordGrant(request, orgId, form, request.query.scope);
        case 'refresh_token':
          return refreshGrant(request, orgId, form.refresh_token);
        default:
          throw unsupportedGrantType(`Unsupported grant_type: ${form.grant_type}`);
      }
    },
    limit > 0 ? { rateLimit: { max: limit, timeWindow: 60_000 } } : {},
  );

  identityRoute(app, postRevoke, async (request) => {
    const orgId = request.params.organization;
    const form = request.body;
    await requireRealm(orgId);
    requireClient(form.client_id);
    if (!form.token) throw invalidRequest('Missing form parameter: token');
    const now = new Date();
    // RFC 7009 §2.2: an invalid or unknown token is answered 200 like a revoked one.
    const refresh = await verifyRefreshToken(form.token, keys);
    if (refresh) {
      if (refresh.realm === orgId && refresh.clientId === config.clientId) await endSession(db, refresh.sid, orgId, now);
    } else {
      // Access tokens stay valid until they expire (as with Keycloak); their session ends, so no refresh follows.
      const access = await verifyAccessToken(form.token, orgId);
      if (access?.sid) await endSession(db, access.sid, orgId, now);
    }
    return null;
  });

  identityRoute(app, postLogout, async (request, reply) => {
    const orgId = request.params.organization;
    const form = request.body;
    await requireRealm(orgId);
    requireClient(form.client_id);
    const now = new Date();
    if (form.refresh_token) {
      const refresh = await verifyRefreshToken(form.refresh_token, keys);
      if (refresh?.realm !== orgId || refresh.clientId !== config.clientId) throw invalidGrant('Invalid refresh token');
      await endSession(db, refresh.sid, orgId, now);
    } else {
      const bearer = bearerOf(request);
      if (!bearer) throw invalidRequest('Missing form parameter: refresh_token');
      const access = await verifyAccessToken(bearer, orgId);
      if (!access) throw invalidToken('Token verification failed');
      if (access.sid) await endSession(db, access.sid, orgId, now);
    }
    void reply.code(204);
    return null;
  });

  identityRoute(app, getUserInfo, async (request) => {
    const orgId = request.params.organization;
    await requireRealm(orgId);
    const bearer = bearerOf(request);
    if (!bearer) throw invalidToken('Missing bearer token');
    const access = await verifyAccessToken(bearer, orgId);
    if (!access) throw invalidToken('Token verification failed');
    // Like Keycloak, userinfo answers only while the token's session lives.
    const user = await findSessionSubject(db, { sessionId: access.sid, userId: access.sub, orgId });
    if (!user) throw invalidToken('User session not found or not active');
    return {
      sub: user.id,
      preferred_username: user.username,
      given_name: user.firstName,
      family_name: user.lastName,
      name: `${user.firstName} ${user.lastName}`.trim(),
      email: user.email,
      email_verified: false,
      realm_access: { roles: user.roles },
      groups: user.groups,
    };
  });

  const sweep = setInterval(() => {
    purgeSessions(db, new Date(), SESSION_GRACE_MS).catch((error: unknown) => {
      app.log.warn({ err: error }, 'session sweep failed');
    });
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
  });
};
