import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Alert, Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ResetLinkError, ResetToken } from '@uvd/contracts';
import { paths } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useResetPassword } from '../api/reset-password.ts';
import { checkNewPassword, NewPasswordFields, type NewPasswordError } from './new-password-fields.tsx';

const linkErrorKey = (code: string | null) =>
  code === ResetLinkError.expired ? ('resetPassword.expired' as const) : code === ResetLinkError.used ? ('resetPassword.used' as const) : ('resetPassword.unknown' as const);

/** The screen a reset mail's link opens: a new password twice, set once with the link's token. */
export const ResetPasswordForm = ({ token }: { token: string }) => {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<{ password?: NewPasswordError; repeat?: NewPasswordError }>({});
  const reset = useResetPassword();
  const validLink = ResetToken.safeParse(token).success;

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = checkNewPassword(password, repeat);
    setErrors(found);
    if (found.password || found.repeat) {
      document.getElementById(found.password ? 'reset-password' : 'reset-repeat')?.focus();
      return;
    }
    reset.mutate({ token, password });
  };

  const requestAgain = (
    <Link to={paths.restorePassword.getHref()} className="btn btn-outline-primary w-100">
      {t('resetPassword.requestAgain')}
    </Link>
  );

  if (reset.data) {
    return (
      <>
        <Alert variant="success" role="status">
          {t('resetPassword.done')}
        </Alert>
        <Link to={paths.signIn.getHref(reset.data.organization)} className="btn btn-primary w-100">
          {t('signInForm.submit')}
        </Link>
      </>
    );
  }
  if (!validLink) {
    return (
      <>
        <Alert variant="danger" role="alert">
          {t('resetPassword.unknown')}
        </Alert>
        {requestAgain}
      </>
    );
  }

  const error = reset.error;
  const linkFailed = isApiRequestError(error) && (error.status === 404 || error.status === 410);
  return (
    <Form noValidate onSubmit={submit}>
      {error && (
        <Alert variant="danger" role="alert">
          {linkFailed ? t(linkErrorKey(error.code)) : t('common.genericError')}
        </Alert>
      )}
      {linkFailed ? (
        requestAgain
      ) : (
        <>
          <NewPasswordFields
            idPrefix="reset"
            password={password}
            repeat={repeat}
            onPassword={setPassword}
            onRepeat={setRepeat}
            errors={errors}
          />
          <Button type="submit" className="w-100 mb-3" disabled={reset.isPending}>
            {t('resetPassword.submit')}
          </Button>
          <Link to={paths.signIn.getHref()} className="small">
            {t('common.backToLogin')}
          </Link>
        </>
      )}
    </Form>
  );
};
