// Contracts of account recovery (issue #25): a reset link by mail, an admin setting a password, and the user's own change.
import { z } from 'zod';
import { Id, Text } from './common.ts';
import { ApiError } from './errors.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { defineRoute } from './route.ts';
import { NewPassword } from './users.ts';

/** Behaviour §5 "Forgot password": the email must be valid ("Invalid email"), the organization non-empty after trim ("Required"). */
export const FORGOT_PASSWORD_MESSAGES = { email: 'Invalid email', organization: 'Required' } as const;

/** A reset link works this long after it was asked for (OWASP ASVS 6.3: short-lived, single use). */
export const PASSWORD_RESET_TTL_MINUTES = 15;

export const ForgotPasswordInput = z.object({
  organization: Text({ error: FORGOT_PASSWORD_MESSAGES.organization })
    .trim()
    .toLowerCase()
    .min(1, FORGOT_PASSWORD_MESSAGES.organization)
    .max(200, FORGOT_PASSWORD_MESSAGES.organization),
  email: Text({ error: FORGOT_PASSWORD_MESSAGES.email })
    .trim()
    .toLowerCase()
    .pipe(z.email(FORGOT_PASSWORD_MESSAGES.email).max(254, FORGOT_PASSWORD_MESSAGES.email)),
  /** The language of the mail (the forgot-password screen's), EN, FI or SE; the user's saved language wins. */
  language: z.enum(['EN', 'FI', 'SE']).optional(),
});
export type ForgotPasswordInput = z.infer<typeof ForgotPasswordInput>;

/** The same reply whether or not such an account exists: the address learns nothing. */
export const ForgotPasswordAccepted = z.object({ status: z.literal('accepted') });
export type ForgotPasswordAccepted = z.infer<typeof ForgotPasswordAccepted>;

/** The token of a reset link: 32 random bytes, base64url. */
export const ResetToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'The link is not a password reset link.');

export const ResetPasswordInput = z.object({ token: ResetToken, password: NewPassword });
export type ResetPasswordInput = z.infer<typeof ResetPasswordInput>;

/** Whom the password was reset for, so the sign-in screen can be filled in. */
export const PasswordResetDone = z.object({ organization: z.string(), username: z.string() });
export type PasswordResetDone = z.infer<typeof PasswordResetDone>;

/** Why a reset link does not work (the web's resetPassword.errors.{code}). */
export const ResetLinkError = {
  unknown: 'reset_link_unknown',
  expired: 'reset_link_expired',
  used: 'reset_link_used',
} as const;
export type ResetLinkError = (typeof ResetLinkError)[keyof typeof ResetLinkError];

export const SetPasswordInput = z.object({ password: NewPassword });
export type SetPasswordInput = z.infer<typeof SetPasswordInput>;

export const ChangePasswordInput = z.object({ currentPassword: z.string().min(1).max(1024), password: NewPassword });
export type ChangePasswordInput = z.infer<typeof ChangePasswordInput>;

/** ChangePasswordInput's refusals: the current password is wrong, or the new one is the same. */
export const ChangePasswordError = { wrongPassword: 'wrong_password', samePassword: 'same_password' } as const;

const tags = ['users', 'recovery'] as const;

export const forgotPassword = defineRoute({
  method: 'POST',
  path: '/user/password/forgot',
  summary: `Mail a single-use password reset link (valid ${PASSWORD_RESET_TTL_MINUTES} min); the same 202 whether or not the account exists; 429 when asked too often`,
  tags,
  auth: false,
  body: ForgotPasswordInput,
  response: { 202: ForgotPasswordAccepted, 400: ApiError, 429: ApiError },
});

export const resetPassword = defineRoute({
  method: 'POST',
  path: '/user/password/reset',
  summary: "Set a new password with a reset link's token (once); ends every session of the user and mails them",
  tags,
  auth: false,
  body: ResetPasswordInput,
  response: { 200: PasswordResetDone, 400: ApiError, 404: ApiError, 410: ApiError, 429: ApiError },
});

export const setUserPassword = defineRoute({
  method: 'PUT',
  path: '/user/user/:id/password',
  summary:
    "An admin sets another user's password; the user must change it at their next sign-in and their sessions end. Their own: 409 cannot_set_own_password (POST /user/my-password)",
  tags,
  params: z.object({ id: Id }),
  body: SetPasswordInput,
  response: { 204: z.null() },
  roles: RESTRICTED_ROLES,
});

export const changeMyPassword = defineRoute({
  method: 'POST',
  path: '/user/my-password',
  summary: "The signed-in user's new password (the current one required); ends their other sessions",
  tags,
  body: ChangePasswordInput,
  response: { 204: z.null() },
});

/** A mail the local catcher received (no SMTP_URL): what the demo and the tests read. */
export const CaughtMail = z.object({
  id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  text: z.string(),
  received_at: z.iso.datetime({ offset: true }),
});
export type CaughtMail = z.infer<typeof CaughtMail>;

/** Header carrying MAIL_CATCHER_TOKEN to read the catcher. */
export const MAIL_CATCHER_HEADER = 'x-mail-catcher-token';

export const listCaughtMail = defineRoute({
  method: 'GET',
  path: '/dev/mail',
  summary: `Mail caught by the local catcher, newest first (only without SMTP_URL; header ${MAIL_CATCHER_HEADER}). 404 when no catcher runs`,
  tags: ['dev'],
  auth: false,
  querystring: z.object({ to: z.string().trim().toLowerCase().optional() }),
  response: { 200: z.object({ data: z.array(CaughtMail) }), 401: ApiError, 404: ApiError },
});
