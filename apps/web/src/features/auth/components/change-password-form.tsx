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

/** The texts of the step an admin's password forces, and of a change the user chose (from their profile). */
const TEXTS = {
  given: {
    instructions: 'changePassword.instructions',
    current: 'changePassword.current',
    submit: 'changePassword.submit',
    wrongPassword: 'changePassword.wrongPassword',
    samePassword: 'changePassword.samePassword',
  },
  own: {
    instructions: 'changePassword.own.instructions',
    current: 'changePassword.own.current',
    submit: 'changePassword.own.submit',
    wrongPassword: 'changePassword.own.wrongPassword',
    samePassword: 'changePassword.own.samePassword',
  },
} as const;

/**
 * The user chooses a new password: the step between sign-in and the console when an admin set it, or a change they
 * chose themselves. The server then ends every session of the user (the one of this tab too), so the form signs in
 * again with the new password, which also leaves the must-change state behind. Only a chosen change can be left
 * (`onCancel`); the forced step offers signing out instead.
 */
export const ChangePasswordForm = ({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const given = user.must_change_password;
  const texts = given ? TEXTS.given : TEXTS.own;
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
              ? t(texts.wrongPassword)
              : code === ChangePasswordError.samePassword
                ? t(texts.samePassword)
                : t('common.genericError'),
          );
        },
      },
    );
  };

  return (
    <Form noValidate onSubmit={submit}>
      <p>{t(texts.instructions)}</p>
      {failure && (
        <Alert variant="danger" role="alert">
          {failure}
        </Alert>
      )}
      <FormField
        id="change-current"
        label={t(texts.current)}
        type="password"
        value={current}
        onValueChange={setCurrent}
        error={errors.current ? t('validation.required') : undefined}
        autoComplete="current-password"
      />
      <NewPasswordFields idPrefix="change" password={password} repeat={repeat} onPassword={setPassword} onRepeat={setRepeat} errors={errors} />
      <Button type="submit" className="w-100 mb-3" disabled={change.isPending}>
        {t(texts.submit)}
      </Button>
      <Button
        variant="link"
        className="w-100"
        onClick={() => {
          if (given) void auth.logout();
          else onCancel();
        }}
      >
        {given ? t('changePassword.signOut') : t('changePassword.own.cancel')}
      </Button>
    </Form>
  );
};
