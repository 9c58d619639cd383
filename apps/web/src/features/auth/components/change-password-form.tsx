import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Alert, Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { ChangePasswordError } from '@uvd/contracts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useAuthClient, useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { useChangePassword } from '../api/change-password.ts';
import { FormField } from './form-field.tsx';
import { checkNewPassword, NewPasswordFields, type NewPasswordError } from './new-password-fields.tsx';

/**
 * The step between sign-in and the console when an admin set the user's password: the user chooses their own. The
 * server then ends every session of the user (the one of this tab too), so the form signs in again with the new
 * password, which leaves the must-change state behind.
 */
export const ChangePasswordForm = ({ onDone }: { onDone: () => void }) => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const auth = useAuthClient();
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<{ current?: boolean; password?: NewPasswordError; repeat?: NewPasswordError }>({});
  const [failure, setFailure] = useState<string | null>(null);

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = { ...checkNewPassword(password, repeat), ...(current ? {} : { current: true }) };
    setErrors(found);
    if (found.current || found.password || found.repeat) {
      document.getElementById(found.current ? 'change-current' : found.password ? 'change-password' : 'change-repeat')?.focus();
      return;
    }
    setFailure(null);
    change.mutate(
      { currentPassword: current, password },
      {
        onSuccess: () => {
          auth
            .login({ organization: user.realm, username: user.username, password })
            .then(onDone)
            .catch(() => {
              setFailure(t('changePassword.signInAgain'));
            });
        },
        onError: (error) => {
          const code = isApiRequestError(error) ? error.code : null;
          setFailure(
            code === ChangePasswordError.wrongPassword
              ? t('changePassword.wrongPassword')
              : code === ChangePasswordError.samePassword
                ? t('changePassword.samePassword')
                : t('common.genericError'),
          );
        },
      },
    );
  };

  return (
    <Form noValidate onSubmit={submit}>
      <p>{t('changePassword.instructions')}</p>
      {failure && (
        <Alert variant="danger" role="alert">
          {failure}
        </Alert>
      )}
      <FormField
        id="change-current"
        label={t('changePassword.current')}
        type="password"
        value={current}
        onValueChange={setCurrent}
        error={errors.current ? t('validation.required') : undefined}
        autoComplete="current-password"
      />
      <NewPasswordFields idPrefix="change" password={password} repeat={repeat} onPassword={setPassword} onRepeat={setRepeat} errors={errors} />
      <Button type="submit" className="w-100 mb-3" disabled={change.isPending}>
        {t('changePassword.submit')}
      </Button>
      <Button
        variant="link"
        className="w-100"
        onClick={() => {
          void auth.logout();
        }}
      >
        {t('changePassword.signOut')}
      </Button>
    </Form>
  );
};
