/**
 * The service worker's decisions, as plain functions (src/sw.ts only wires them to the browser): which pushes to
 * show and how, what a click on a notification or one of its buttons does, and what a failed answer says.
 */
import { confirmAction, DataFlag, IDEMPOTENCY_KEY_HEADER, PushChoice, PushMessage } from '@uvd/contracts';
import type { ActionDecision } from '@uvd/contracts';
import type { MirroredSession } from '../lib/auth/session-mirror.ts';
import { consolePathOf, promptOf } from '../lib/push/push-message.ts';
// Only the `push` texts of each language: the worker has no i18next, and the console's locale files stay the one
// place every user-facing string lives.
import { push as en } from '../locales/en.json';
import { push as fi } from '../locales/fi.json';
import { push as se } from '../locales/se.json';
import type { PushNotificationOptions } from './scope.ts';

/** The monochrome icon Android shows in the status bar. */
export const BADGE_URL = '/icons/badge-96.png';

/** A push's data as the worker receives it: our PushMessage, or nothing to show. */
export const parsePush = (text: string | null): PushMessage | null => {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = PushMessage.safeParse(value);
  return parsed.success ? parsed.data : null;
};

export interface NotificationSpec {
  title: string;
  options: PushNotificationOptions;
}

/**
 * The system notification of a push: one per push id (a repeated delivery replaces it), a prompt's answers as
 * buttons, and a prompt stays until it is answered or dismissed.
 */
export const notificationOf = (message: PushMessage): NotificationSpec => {
  const prompt = promptOf(message);
  return {
    title: message.title,
    options: {
      body: message.body,
      icon: message.icon,
      badge: BADGE_URL,
      tag: message.push_id,
      data: message,
      actions: prompt ? prompt.choices.map(({ choice, label }) => ({ action: choice, title: label })) : [],
      requireInteraction: prompt !== null,
      timestamp: Date.parse(message.sent_at),
    },
  };
};

/** A token this close to its expiry is not used: the answer could arrive after it. */
const EXPIRY_MARGIN_MS = 30_000;

export type ClickPlan =
  | { kind: 'open'; path: string }
  | { kind: 'answer'; message: PushMessage; path: string; url: string; init: RequestInit };

/**
 * A click on a notification: a prompt's button answers it with the mirrored session (bearer only, no cookie, so
 * the API's anti-forgery check does not apply), when that session is alive and of the push's organization;
 * anything else opens the console at the push's path.
 */
export const planClick = (data: unknown, action: string, session: MirroredSession | null, now: number): ClickPlan => {
  const parsed = PushMessage.safeParse(data);
  if (!parsed.success) return { kind: 'open', path: '/' };
  const message = parsed.data;
  const path = consolePathOf(message);
  const choice = PushChoice.safeParse(action);
  const prompt = promptOf(message);
  if (!choice.success || !prompt?.choices.some((offered) => offered.choice === choice.data)) return { kind: 'open', path };
  if (!session || session.expiresAt - EXPIRY_MARGIN_MS <= now || session.realm !== message.realm) return { kind: 'open', path };
  const decision: ActionDecision = { action_id: prompt.actionId, confirm: choice.data === 'confirm', source: 'notification' };
  return {
    kind: 'answer',
    message,
    path,
    url: `${session.actionBackend.replace(/\/+$/, '')}${confirmAction.path}`,
    init: {
      method: 'POST',
      credentials: 'omit',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${session.accessToken}`,
        // One answer per click: a repeat of this request (the browser's, a proxy's) has one effect.
        [IDEMPOTENCY_KEY_HEADER]: crypto.randomUUID(),
      },
      body: JSON.stringify(decision),
    },
  };
};

/** answered; open the console (the session was refused); closed (answered elsewhere, or withdrawn); failed. */
export type AnswerOutcome = 'answered' | 'open' | 'closed' | 'failed';

export const outcomeOf = (status: number, body: unknown): AnswerOutcome => {
  if (status === 200) return DataFlag.safeParse(body).data?.data === true ? 'answered' : 'failed';
  if (status === 401 || status === 403) return 'open';
  // 409: already answered, or the robot no longer asks; 404: the action is gone with its job.
  if (status === 404 || status === 409) return 'closed';
  return 'failed';
};

const TEXTS = { en, fi, se };

/** The worker's language: the browser's, as the console names it (Swedish is `se`), English otherwise. */
export const languageOf = (tag: string): keyof typeof TEXTS => {
  const primary = tag.toLowerCase().split(/[-_]/)[0];
  if (primary === 'fi') return 'fi';
  if (primary === 'sv' || primary === 'se') return 'se';
  return 'en';
};

/** What an answer that did not go through says, in place of the prompt's notification (same tag). */
export const followUpOf = (message: PushMessage, outcome: 'closed' | 'failed', language: string): NotificationSpec => {
  const texts = TEXTS[languageOf(language)];
  return {
    title: message.title,
    options: {
      body: outcome === 'closed' ? texts.alreadyAnswered : texts.answerFailed,
      icon: message.icon,
      badge: BADGE_URL,
      tag: message.push_id,
      // A click on it opens the console at the push's path (no buttons: the prompt is not answered from here).
      data: { ...message, action_id: undefined, choices: undefined, choice_labels: undefined },
      actions: [],
      requireInteraction: false,
      timestamp: Date.parse(message.sent_at),
    },
  };
};
