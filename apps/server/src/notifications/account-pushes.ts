/**
 * Pushes about accounts: a password reset link was asked for (recovery/routes.ts), to the organization's admins, so
 * a request nobody expected is seen. Opens the admin's Users tab.
 */
import type { PushMessage } from '@uvd/contracts';
import type { pushEvents } from '../db/schema.ts';
import type { Recipient } from './devices.ts';
import { languageOf, type Language } from './messages.ts';

const texts: Record<Language, (user: string) => [string, string]> = {
  en: (user) => ['Password reset requested', `${user} asked for a password reset link.`],
  fi: (user) => ['Salasanan vaihtoa pyydettiin', `${user} pyysi salasanan vaihtolinkkiä.`],
  se: (user) => ['Nytt lösenord begärt', `${user} har bett om en länk för att återställa lösenordet.`],
};

export function accountMessageFor(
  event: typeof pushEvents.$inferSelect,
  userId: string,
  userName: string,
  recipient: Recipient,
  icon: string,
): PushMessage {
  const [title, body] = texts[languageOf(recipient.language)](userName);
  return {
    title,
    body,
    icon,
    type: 'account',
    related_id: userId,
    kind: 'password_reset_requested',
    push_id: event.id,
    url: '/admin#users',
    realm: event.orgId,
    sent_at: new Date().toISOString(),
  };
}
