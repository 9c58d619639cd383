import { PushMessage } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import type { MirroredSession } from '../lib/auth/session-mirror.ts';
import { BADGE_URL, followUpOf, languageOf, notificationOf, outcomeOf, parsePush, planClick } from './notifications.ts';
import { promptPushFixture, PUSH_ACTION, PUSH_JOB } from '../testing/push-fixtures.ts';

const JOB = PUSH_JOB;
const ACTION = PUSH_ACTION;
const NOW = Date.parse('2026-11-20T10:00:00Z');

const prompt = (overrides: Partial<PushMessage> = {}): PushMessage =>
  promptPushFixture({ title: 'UVD-1 asks', choice_labels: { confirm: 'Vahvista', skip: 'Ohita' }, ...overrides });

const finished = (): PushMessage =>
  PushMessage.parse({ ...prompt(), kind: 'job_finished', action_id: undefined, choices: undefined, choice_labels: undefined, push_id: 'push-2' });

/** The JSON body a planned answer sends. */
const sentBody = (init: RequestInit): unknown => (typeof init.body === 'string' ? JSON.parse(init.body) : null);

const session = (overrides: Partial<MirroredSession> = {}): MirroredSession => ({
  accessToken: 'access-abc',
  expiresAt: NOW + 600_000,
  realm: 'demo',
  actionBackend: 'https://console.example.test/api/',
  ...overrides,
});

describe('parsePush: what the worker shows', () => {
  it('reads a push message of the contract', () => {
    expect(parsePush(JSON.stringify(prompt()))).toEqual(prompt());
  });

  it('drops anything else: no data, not JSON, another shape', () => {
    expect(parsePush(null)).toBeNull();
    expect(parsePush('not json')).toBeNull();
    expect(parsePush(JSON.stringify({ title: 'Hello', body: 'from elsewhere' }))).toBeNull();
    expect(parsePush(JSON.stringify({ ...prompt(), type: 'parcel' }))).toBeNull();
  });
});

describe('notificationOf', () => {
  it('a prompt has its two answers as buttons, in the recipient language, and stays until answered', () => {
    const { title, options } = notificationOf(prompt());
    expect(title).toBe('UVD-1 asks');
    expect(options).toEqual({
      body: 'Confirm the room is empty to enter: Room 101 (Morning round)',
      icon: '/icons/icon-192.png',
      badge: BADGE_URL,
      tag: 'push-1',
      data: prompt(),
      actions: [
        { action: 'confirm', title: 'Vahvista' },
        { action: 'skip', title: 'Ohita' },
      ],
      requireInteraction: true,
      timestamp: Date.parse('2026-11-20T09:59:58Z'),
    });
  });

  it('offers only the choices the push names', () => {
    expect(notificationOf(prompt({ choices: ['confirm'] })).options.actions).toEqual([{ action: 'confirm', title: 'Vahvista' }]);
  });

  it('a push that only informs has no buttons and goes away by itself', () => {
    const { options } = notificationOf(finished());
    expect(options.actions).toEqual([]);
    expect(options.requireInteraction).toBe(false);
    expect(options.tag).toBe('push-2');
  });
});

describe('planClick: what a click does', () => {
  it('answers Confirm with the mirrored session: bearer only, no cookie, source notification', () => {
    const plan = planClick(prompt(), 'confirm', session(), NOW);
    if (plan.kind !== 'answer') throw new Error(`expected an answer, got ${plan.kind}`);
    expect(plan.url).toBe('https://console.example.test/api/action/action/confirm');
    expect(plan.init.method).toBe('POST');
    expect(plan.init.credentials).toBe('omit');
    expect(new Headers(plan.init.headers).get('authorization')).toBe('Bearer access-abc');
    expect(new Headers(plan.init.headers).get('content-type')).toBe('application/json');
    expect(new Headers(plan.init.headers).get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(sentBody(plan.init)).toEqual({ action_id: ACTION, confirm: true, source: 'notification' });
    expect(plan.path).toBe(`/job/${JOB}`);
  });

  it('answers Skip as confirm false', () => {
    const plan = planClick(prompt(), 'skip', session(), NOW);
    expect(plan.kind === 'answer' && sentBody(plan.init)).toEqual({ action_id: ACTION, confirm: false, source: 'notification' });
  });

  it('opens the console at the push instead without a session, with one about to expire, or of another organization', () => {
    const open = { kind: 'open', path: `/job/${JOB}` };
    expect(planClick(prompt(), 'confirm', null, NOW)).toEqual(open);
    expect(planClick(prompt(), 'confirm', session({ expiresAt: NOW + 10_000 }), NOW)).toEqual(open);
    expect(planClick(prompt(), 'confirm', session({ expiresAt: NOW - 1 }), NOW)).toEqual(open);
    expect(planClick(prompt(), 'confirm', session({ realm: 'northwind' }), NOW)).toEqual(open);
  });

  it('a click on the notification itself, or on an answer the push does not offer, opens the console there', () => {
    expect(planClick(prompt(), '', session(), NOW)).toEqual({ kind: 'open', path: `/job/${JOB}` });
    expect(planClick(prompt({ choices: ['confirm'] }), 'skip', session(), NOW)).toEqual({ kind: 'open', path: `/job/${JOB}` });
    expect(planClick(finished(), 'confirm', session(), NOW)).toEqual({ kind: 'open', path: `/job/${JOB}` });
    expect(planClick(prompt({ url: '/map?robot=r1' }), '', session(), NOW)).toEqual({ kind: 'open', path: '/map?robot=r1' });
  });

  it('never leaves the console: another origin or malformed data opens its home', () => {
    expect(planClick(prompt({ url: 'https://elsewhere.example/phish' }), '', session(), NOW)).toEqual({ kind: 'open', path: '/' });
    expect(planClick(prompt({ url: '//elsewhere.example/phish' }), '', session(), NOW)).toEqual({ kind: 'open', path: '/' });
    expect(planClick({ title: 'not ours' }, 'confirm', session(), NOW)).toEqual({ kind: 'open', path: '/' });
  });
});

describe('outcomeOf: what the answer reply means', () => {
  it.each([
    [200, { data: true }, 'answered'],
    [200, { data: false }, 'failed'],
    [200, null, 'failed'],
    [401, null, 'open'],
    [403, { error: 'forbidden', message: 'no' }, 'open'],
    [409, { error: 'job_state', message: 'answered' }, 'closed'],
    [404, { error: 'not_found', message: 'gone' }, 'closed'],
    [500, null, 'failed'],
    [503, null, 'failed'],
  ])('%i %j → %s', (status, body, outcome) => {
    expect(outcomeOf(status, body)).toBe(outcome);
  });
});

describe('followUpOf: an answer that did not go through', () => {
  it("replaces the prompt's notification (same tag) with the reason in the browser's language, without buttons", () => {
    const { title, options } = followUpOf(prompt(), 'closed', 'fi-FI');
    expect(title).toBe('UVD-1 asks');
    expect(options.body).toBe('Kehotteeseen on jo vastattu, tai robotti ei enää kysy.');
    expect(options.tag).toBe('push-1');
    expect(options.actions).toEqual([]);
    // A click on it opens the job (planClick finds no prompt in it any more).
    expect(planClick(options.data, 'confirm', session(), NOW)).toEqual({ kind: 'open', path: `/job/${JOB}` });
    expect(followUpOf(prompt(), 'failed', 'en-US').options.body).toBe('The answer could not be sent. Open the console to answer.');
    expect(followUpOf(prompt(), 'failed', 'sv-SE').options.body).toBe('Svaret kunde inte skickas. Öppna konsolen för att svara.');
  });

  it('speaks English to any other language', () => {
    expect(languageOf('de-DE')).toBe('en');
    expect(languageOf('fi')).toBe('fi');
    expect(languageOf('sv-FI')).toBe('se');
  });
});
