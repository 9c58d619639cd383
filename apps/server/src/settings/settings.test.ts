import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, LanguageOption, TimezoneOption, UserSettings } from '@uvd/contracts';
import { users } from '../db/schema.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { timezoneList } from './timezones.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('GET /api/settings/language', () => {
  it('answers the interface languages as [name, id] pairs', async () => {
    const user = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const response = await server.request('GET', '/api/settings/language', { token: user.token });
    expect(response.status).toBe(200);
    expect(z.array(LanguageOption).parse(response.body)).toEqual([
      ['English', 'en'],
      ['Suomi', 'fi'],
      ['Svenska', 'se'],
    ]);
  });

  it('answers 401 without a token', async () => {
    expect((await server.request('GET', '/api/settings/language')).status).toBe(401);
  });
});

describe('GET /api/settings/timezones', () => {
  it('answers IANA zones as [name, current offset] pairs', async () => {
    const user = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const response = await server.request('GET', '/api/settings/timezones', { token: user.token });
    expect(response.status).toBe(200);
    const zones = new Map(z.array(TimezoneOption).parse(response.body));
    expect(zones.size).toBeGreaterThan(300);
    expect(zones.get('UTC')).toBe('+00:00');
    expect(zones.get('Asia/Kolkata') ?? zones.get('Asia/Calcutta')).toBe('+05:30');
    expect(['+02:00', '+03:00']).toContain(zones.get('Europe/Helsinki'));
    expect(['-05:00', '-04:00']).toContain(zones.get('America/New_York'));
  });

  it('follows daylight saving time', () => {
    const helsinki = (at: string) => new Map(timezoneList(new Date(at))).get('Europe/Helsinki');
    expect(helsinki('2025-01-15T12:00:00Z')).toBe('+02:00');
    expect(helsinki('2025-07-15T12:00:00Z')).toBe('+03:00');
    const stJohns = new Map(timezoneList(new Date('2025-01-15T12:00:00Z'))).get('America/St_Johns');
    expect(stJohns).toBe('-03:30');
  });

  it('answers 401 without a token', async () => {
    expect((await server.request('GET', '/api/settings/timezones')).status).toBe(401);
  });
});

describe('POST /api/settings/settings', () => {
  it("saves language (any case, stored uppercase) and timezone on the caller's row", async () => {
    const user = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const response = await server.request('POST', '/api/settings/settings', {
      token: user.token,
      body: { language: 'se', timezone: 'Europe/Stockholm' },
    });
    expect(response.status).toBe(200);
    expect(z.object({ data: UserSettings }).parse(response.body)).toEqual({ data: { language: 'SE', timezone: 'Europe/Stockholm' } });
    const [row] = await server.context.db
      .select({ language: users.language, timezone: users.timezone })
      .from(users)
      .where(eq(users.id, user.id));
    expect(row).toEqual({ language: 'SE', timezone: 'Europe/Stockholm' });
    const upper = await server.request('POST', '/api/settings/settings', { token: user.token, body: { language: 'EN', timezone: 'UTC' } });
    expect(upper.body).toEqual({ data: { language: 'EN', timezone: 'UTC' } });
  });

  it('answers 400 naming the field for an unknown language or timezone, and writes nothing', async () => {
    const user = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ language: 'de', timezone: 'Europe/Helsinki' }, 'language', 'Language must be one of en, fi, se'],
      [{ timezone: 'Europe/Helsinki' }, 'language', 'Language must be one of en, fi, se'],
      [{ language: 'fi', timezone: 'Mars/Olympus_Mons' }, 'timezone', 'Timezone must be an IANA time zone name'],
      [{ language: 'fi', timezone: '' }, 'timezone', 'Timezone must be an IANA time zone name'],
    ];
    for (const [body, field, message] of cases) {
      const response = await server.request('POST', '/api/settings/settings', { token: user.token, body });
      expect(response.status).toBe(400);
      const error = ApiError.parse(response.body);
      expect(error.message).toContain(`"${field}"`);
      expect(error.message).toContain(message);
    }
    const [row] = await server.context.db.select({ language: users.language }).from(users).where(eq(users.id, user.id));
    expect(row?.language).toBe('EN');
  });

  it('answers 401 without a token', async () => {
    const response = await server.request('POST', '/api/settings/settings', { body: { language: 'fi', timezone: 'UTC' } });
    expect(response.status).toBe(401);
  });

  // A deleted user's access ends at once (identity/revocation.ts): the token is refused before the settings are read.
  it('answers 401 when the token’s user no longer exists', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const gone = await server.createUser(org, ['done-teleoperator']);
    expect((await server.request('DELETE', `/api/user/delete/${gone.id}`, { token: admin.token })).status).toBe(200);
    const response = await server.request('POST', '/api/settings/settings', { token: gone.token, body: { language: 'fi', timezone: 'UTC' } });
    expect(response.status).toBe(401);
  });
});
