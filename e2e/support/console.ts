/**
 * What a person does in the console, in one place: sign in, read the translation a screen should show.
 * Selectors are the sign-in form's stable ids and ARIA roles, so the same steps work in every language.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { updateRoomReadiness } from '@uvd/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { apiSignIn, callApi, type ApiSession } from './api.ts';
import { expectNoPageErrors, openSession, settle, type Session, type Viewport } from './browser.ts';
import { REPO_ROOT } from './paths.ts';

/** The seeded demo organization (apps/server/src/seed/demo-data.ts). */
export const DEMO = {
  org: 'demo',
  admin: { username: 'admin', password: 'admin-demo-1' },
  operator: { username: 'operator', password: 'operator-demo-1' },
} as const;

/**
 * The seeded northwind organization, which only the tests of robots they play themselves use (support/own-robots.ts),
 * so its screens are theirs alone.
 */
export const NORTHWIND = {
  org: 'northwind',
  admin: { username: 'admin', password: 'northwind-admin-1' },
  operator: { username: 'operator', password: 'northwind-operator-1' },
} as const;

export type Language = 'en' | 'fi' | 'se';

const translations = new Map<Language, unknown>();

/** The text of `key` (dotted, e.g. `signInForm.submit`) in the web app's own locale file for `language`. */
export function t(language: Language, key: string): string {
  let tree = translations.get(language);
  if (tree === undefined) {
    tree = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/web/src/locales', `${language}.json`), 'utf8')) as unknown;
    translations.set(language, tree);
  }
  let node: unknown = tree;
  for (const part of key.split('.')) {
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node !== 'string') throw new Error(`no ${language} translation for ${key}`);
  return node;
}

/** `t` with its `{{name}}` placeholders filled, as i18next renders the text. */
export function tFill(language: Language, key: string, values: Record<string, string | number>): string {
  return t(language, key).replace(/\{\{(\w+)\}\}/g, (_match, name: string) => String(values[name] ?? ''));
}

/** A fresh session at this size, signed in to the organization (demo by default) as `user`, its first screen settled. */
export async function signedInSession(
  browser: Browser,
  viewport: Viewport,
  user: { username: string; password: string },
  organization: string = DEMO.org,
): Promise<Session> {
  const session = await openSession(browser, viewport);
  await session.goto('/auth');
  await signIn(session.page, organization, user.username, user.password);
  await settle(session.page);
  return session;
}

/**
 * The signed-in session of a describe block's tests: one for the whole block (`once`, the default: quick) or a fresh
 * one for each test (`each`: no test sees another's state), closed after, with the page's uncaught errors failing
 * the test they happened in. `browser` is read when the session opens (the file's beforeAll launched it).
 */
export function blockSession(
  browser: () => Browser,
  viewport: Viewport,
  user: { username: string; password: string },
  options: { organization?: string; fresh?: 'once' | 'each' } = {},
): Session {
  let current: Session | undefined;
  const open = async () => {
    current = await signedInSession(browser(), viewport, user, options.organization);
  };
  const session = (): Session => {
    if (current === undefined) throw new Error('blockSession: used outside the tests of its describe block');
    return current;
  };
  if (options.fresh === 'each') {
    beforeEach(open);
    afterEach(async () => {
      await session().close();
      expectNoPageErrors(session());
    });
  } else {
    beforeAll(open);
    afterAll(async () => {
      await current?.close();
    });
    afterEach(() => {
      expectNoPageErrors(session());
    });
  }
  return {
    viewport,
    get context() {
      return session().context;
    },
    get page() {
      return session().page;
    },
    get pageErrors() {
      return session().pageErrors;
    },
    goto: (pathAndQuery) => session().goto(pathAndQuery),
    close: () => session().close(),
  };
}

/** What each test of a block that drives the demo's Ward A operator has (`operatorEachTest`). */
export interface OperatorTest {
  /** A fresh browser session at the block's size, not signed in yet. */
  readonly session: Session;
  /** The operator's API session. */
  readonly api: ApiSession;
  /**
   * A room the test marked not ready: set ready again after the test, so that one which failed before its robot got
   * past the room does not leave it so for the next.
   */
  roomToRestore: string | null;
}

/**
 * For each test of the describe block: a fresh session at this size and the operator's API session; after it the
 * session is closed, `roomToRestore` set ready again, and the page's uncaught errors fail the test they happened in.
 * `browser` is read when the session opens (the file's beforeAll launched it).
 */
export function operatorEachTest(browser: () => Browser, viewport: Viewport): OperatorTest {
  let session: Session | undefined;
  let api: ApiSession | undefined;
  const current = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('operatorEachTest: used outside the tests of its describe block');
    return value;
  };
  const test: OperatorTest = {
    get session() {
      return current(session);
    },
    get api() {
      return current(api);
    },
    roomToRestore: null,
  };
  beforeEach(async () => {
    session = await openSession(browser(), viewport);
    api = await apiSignIn(DEMO.org, DEMO.operator.username, DEMO.operator.password);
  });
  afterEach(async () => {
    await session?.close();
    if (test.roomToRestore !== null && api) {
      await callApi(api, updateRoomReadiness, { body: { rooms: [{ room_id: test.roomToRestore, ready_for_disinfection: true }] } });
      test.roomToRestore = null;
    }
    if (session) expectNoPageErrors(session);
  });
  return test;
}

/** Fills the sign-in form at /auth and submits it; resolves once the console has left the auth screens. */
export async function signIn(page: Page, org: string, username: string, password: string): Promise<void> {
  if (!new URL(page.url(), 'http://x').pathname.startsWith('/auth')) await page.goto('/auth');
  await page.locator('#sign-in-organization').fill(org);
  await page.locator('#sign-in-username').fill(username);
  await page.locator('#sign-in-password').fill(password);
  await page.locator('form button[type=submit]').click();
  await page.waitForURL((url) => !url.pathname.startsWith('/auth'));
}

export function pathnameOf(page: Page): string {
  return new URL(page.url()).pathname;
}
