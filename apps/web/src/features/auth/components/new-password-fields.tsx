import { useTranslation } from 'react-i18next';
import { PASSWORD_MIN_LENGTH } from '@uvd/contracts';
import { FormField } from './form-field.tsx';

export type NewPasswordError = 'tooShort' | 'mismatch';

/** The new password's rule (the same as the server's for every new password) as the user reads it, or what breaks it. */
export const checkNewPassword = (password: string, repeat: string): { password?: NewPasswordError; repeat?: NewPasswordError } => ({
  ...(password.length < PASSWORD_MIN_LENGTH ? { password: 'tooShort' as const } : {}),
  ...(repeat !== password ? { repeat: 'mismatch' as const } : {}),
});

interface Props {
  idPrefix: string;
  password: string;
  repeat: string;
  onPassword: (value: string) => void;
  onRepeat: (value: string) => void;
  errors: { password?: NewPasswordError | undefined; repeat?: NewPasswordError | undefined };
}

/** New password and its repeat, with the rule shown before anything is typed. */
export const NewPasswordFields = ({ idPrefix, password, repeat, onPassword, onRepeat, errors }: Props) => {
  const { t } = useTranslation();
  const message = (error: NewPasswordError | undefined) =>
    error === 'tooShort' ? t('newPassword.tooShort', { min: PASSWORD_MIN_LENGTH }) : error === 'mismatch' ? t('newPassword.mismatch') : undefined;
  return (
    <>
      <p id={`${idPrefix}-rules`} className="small text-body-secondary">
        {t('newPassword.rules', { min: PASSWORD_MIN_LENGTH })}
      </p>
      <FormField
        id={`${idPrefix}-password`}
        label={t('newPassword.password')}
        type="password"
        value={password}
        onValueChange={onPassword}
        error={message(errors.password)}
        autoComplete="new-password"
      />
      <FormField
        id={`${idPrefix}-repeat`}
        label={t('newPassword.repeat')}
        type="password"
        value={repeat}
        onValueChange={onRepeat}
        error={message(errors.repeat)}
        autoComplete="new-password"
      />
    </>
  );
};
