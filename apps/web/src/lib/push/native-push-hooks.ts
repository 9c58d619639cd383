/**
 * How the mobile shell's notifications reach the console (native-push-device.ts options): the Android channel of
 * prompts named in the user's language, a prompt's buttons answered with the console's session, a tap opening
 * the job. Loaded only inside the shell, with its device.
 */
import type { i18n as I18n } from 'i18next';
import type { ApiClient } from '../api-client.ts';
import type { AuthClient } from '../auth/auth-client.ts';
import { answerPromptFromNotification } from './answer-prompt.ts';
import type { NativePushDeviceOptions } from './native-push-device.ts';
import { consolePathOf } from './push-message.ts';

export interface NativePushContext {
  api: ApiClient;
  auth: Pick<AuthClient, 'initialize' | 'getSnapshot'>;
  i18n: Pick<I18n, 't'>;
  open: (path: string) => void;
}

export const nativePushHooks = (context: NativePushContext): Pick<NativePushDeviceOptions, 'promptChannel' | 'onPromptAnswer' | 'onNotificationOpened'> => ({
  promptChannel: { name: context.i18n.t('push.promptChannel'), description: context.i18n.t('push.promptChannelHelp') },
  onPromptAnswer: (decision, message) => {
    void answerPromptFromNotification(context, decision, message);
  },
  onNotificationOpened: (message) => {
    context.open(consolePathOf(message));
  },
});
