/**
 * The mobile shell's notification buttons (iOS category PROMPT): the app wakes with the operator's answer, which
 * the console sends with its own session once it is restored. Without a session of the push's organization, or
 * when that session is refused, the console opens at the job instead; an answer that no longer applies says so.
 */
import { confirmAction } from '@uvd/contracts';
import type { ActionDecision, PushMessage } from '@uvd/contracts';
import { isApiRequestError } from '../api-error.ts';
import { commandParts } from '../command.ts';
import { errorMessage, PROMPT_ANSWER_KEYS } from '../error-message.ts';
import { toast } from '../toast.ts';
import type { NativePushContext } from './native-push-hooks.ts';
import { consolePathOf } from './push-message.ts';

export const answerPromptFromNotification = async (
  { api, auth, i18n, open }: NativePushContext,
  decision: ActionDecision,
  message: PushMessage,
): Promise<void> => {
  await auth.initialize();
  const { status, user } = auth.getSnapshot();
  if (status !== 'authenticated' || user?.realm !== message.realm) {
    open(consolePathOf(message));
    return;
  }
  try {
    const reply = await api.request(confirmAction, { body: decision, ...commandParts() });
    if (!reply.data) toast.error(i18n.t('push.answerFailed'));
  } catch (error) {
    const status = isApiRequestError(error) ? error.status : null;
    if (status === 401 || status === 403) open(consolePathOf(message));
    else toast.error(errorMessage(i18n.t, error, 'push.answerFailed', PROMPT_ANSWER_KEYS));
  }
};
