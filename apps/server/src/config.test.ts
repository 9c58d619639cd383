import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOAD_SHEDDING_OFF, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('gives every setting its documented default on an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: undefined,
      metricsToken: undefined,
      trustProxy: false,
      dataDir: './data',
      webDist: undefined,
      databaseUrl: undefined,
      mqttUrl: undefined,
      mqttPort: 1884,
      mqttHost: '127.0.0.1',
      mqttShareGroup: 'uvd-gateway',
      clientId: 'uvd-console',
      variant: 'disinfection',
      accessTokenTtlSeconds: 900,
      refreshTokenTtlSeconds: 1800,
      offlineTokenTtlSeconds: 30 * 24 * 3600,
      refreshTokenGraceSeconds: 30,
      tokenRateLimitPerMinute: 60,
      schedulerPollMs: 1000,
      seedDemo: true,
      logLevel: 'info',
      requestLogLevel: 'info',
      corsOrigins: ['capacitor://localhost', 'https://localhost'],
      liveHeartbeatMs: 15_000,
      liveRetentionMs: 3_600_000,
      liveMaxBufferedBytes: 1_048_576,
      fleet: { staleMs: 30_000, offlineMs: 60_000, pingIntervalMs: 5000, pingTimeoutMs: 4000 },
      bruteForce: { failureFactor: 5, waitIncrementSeconds: 60, maxWaitSeconds: 900 },
      push: {
        vapid: undefined,
        vapidSubject: 'mailto:push@uvd-console.invalid',
        endpointHosts: [],
        fcmServiceAccount: undefined,
        escalationMs: 120_000,
        giveUpMs: 3_600_000,
        retryBaseMs: 2000,
        sendTimeoutMs: 10_000,
      },
      webhooks: { hosts: [], giveUpMs: 86_400_000, retryBaseMs: 5000, sendTimeoutMs: 10_000 },
      loadShedding: { maxInFlight: 64, maxEventLoopDelayMs: 1000, maxEventLoopUtilization: 0.98, retryAfterSeconds: 5 },
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 10_000, maxConnections: 10_000 },
    });
  });

  it('names the variable and the problem of each bad value', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/^Invalid environment: PORT: /);
    expect(() => loadConfig({ FLEET_STALE_SECONDS: 'soon' })).toThrow(/FLEET_STALE_SECONDS: /);
    expect(() => loadConfig({ VAPID_SUBJECT: 'push@example.com' })).toThrow(
      'Invalid environment: VAPID_SUBJECT: must start with mailto: or https://',
    );
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY: /);
    // A shared subscription's group is one topic level: a "/" would subscribe to something else.
    expect(() => loadConfig({ MQTT_SHARE_GROUP: 'uvd/gateway' })).toThrow(/MQTT_SHARE_GROUP: letters, digits/);
    // The grace window of a just exchanged refresh token is capped as Amazon Cognito caps it.
    expect(() => loadConfig({ REFRESH_TOKEN_GRACE_SECONDS: '61' })).toThrow(/REFRESH_TOKEN_GRACE_SECONDS: /);
    // The metrics token is a secret sent as a bearer token: long, and nothing a header could not carry.
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: at least 24 characters/);
    expect(() => loadConfig({ METRICS_TOKEN: 'a token with spaces in it, long enough' })).toThrow(/METRICS_TOKEN: a bearer token/);
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'Zq1+/x_y-z.~Zq1+/x_y-z.~==' }).metricsToken).toBe('Zq1+/x_y-z.~Zq1+/x_y-z.~==');
    // Every bad variable is listed, not only the first.
    const both = () => loadConfig({ LOG_LEVEL: 'loud', LOAD_MAX_EVENT_LOOP_UTILIZATION: '2' });
    expect(both).toThrow(/LOG_LEVEL: /);
    expect(both).toThrow(/LOAD_MAX_EVENT_LOOP_UTILIZATION: /);
  });

  it('derives milliseconds, lists and the combined values from the variables', () => {
    const config = loadConfig({
      FLEET_STALE_SECONDS: '1.5',
      PUSH_ESCALATION_SECONDS: '2',
      LIVE_HEARTBEAT_SECONDS: '0.5',
      PUSH_ENDPOINT_HOSTS: ' Push.Example.COM , ,other.example ',
      CORS_ORIGINS: 'https://a.example,https://b.example',
      HTTP_HEADERS_TIMEOUT_SECONDS: '40',
      HTTP_REQUEST_TIMEOUT_SECONDS: '20',
      VAPID_PUBLIC_KEY: 'public',
      VAPID_PRIVATE_KEY: 'private',
      TRUST_PROXY: 'true',
      SEED_DEMO: 'false',
      DATABASE_URL: '',
      ...LOAD_SHEDDING_OFF,
    });
    expect(config.fleet.staleMs).toBe(1500);
    expect(config.push.escalationMs).toBe(2000);
    expect(config.liveHeartbeatMs).toBe(500);
    expect(config.push.endpointHosts).toEqual(['push.example.com', 'other.example']);
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    // Node refuses a request timeout shorter than the headers timeout: the longer of the two is used.
    expect(config.http).toMatchObject({ headersTimeoutMs: 40_000, requestTimeoutMs: 40_000 });
    expect(config.push.vapid).toEqual({ publicKey: 'public', privateKey: 'private' });
    expect(config.trustProxy).toBe(true);
    expect(config.seedDemo).toBe(false);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.loadShedding).toMatchObject({ maxInFlight: 0, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 });
    // One VAPID key alone is no key pair: one is made and kept in the database instead.
    expect(loadConfig({ VAPID_PUBLIC_KEY: 'public' }).push.vapid).toBeUndefined();
  });

  it('reads the Firebase service account from the variable or else from its file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'config-test-')), 'service-account.json');
    writeFileSync(file, '{"project_id":"from-file"}');
    expect(loadConfig({ FCM_SERVICE_ACCOUNT_FILE: file }).push.fcmServiceAccount).toBe('{"project_id":"from-file"}');
    expect(loadConfig({ FCM_SERVICE_ACCOUNT: '{"project_id":"inline"}', FCM_SERVICE_ACCOUNT_FILE: file }).push.fcmServiceAccount).toBe(
      '{"project_id":"inline"}',
    );
  });
});
