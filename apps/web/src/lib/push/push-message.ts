/** What the service worker and the in-app toast read alike from a push (contracts' PushMessage). */
import type { PushChoice, PushMessage } from '@uvd/contracts';

/**
 * The console path a push opens: its `url` when it is a path of this origin (`/job/{id}`, `/map?robot={id}`),
 * else the home screen, so no push can send a click elsewhere.
 */
export const consolePathOf = (message: Pick<PushMessage, 'url'>): string =>
  message.url.startsWith('/') && !message.url.startsWith('//') && !message.url.startsWith('/\\') ? message.url : '/';

export interface PushPrompt {
  actionId: string;
  /** The answers offered, in the push's order, each with its label in the recipient's language. */
  choices: { choice: PushChoice; label: string }[];
}

/** The prompt a push asks (behaviour §4 confirm or skip), or null when it only informs. */
export const promptOf = (message: PushMessage): PushPrompt | null => {
  const { action_id: actionId, choices, choice_labels: labels } = message;
  if (!actionId || !choices || choices.length === 0 || !labels) return null;
  return { actionId, choices: [...new Set(choices)].map((choice) => ({ choice, label: labels[choice] })) };
};
