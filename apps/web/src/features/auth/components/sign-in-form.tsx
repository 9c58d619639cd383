import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Alert, Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { z } from 'zod';
import { paths } from '../../../config/paths.ts';
import { SignInInput } from '../../../lib/auth/password-grant.ts';
import { useAuthClient } from '../../../lib/auth/auth-context.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { FormField } from './form-field.tsx';

type Field = keyof z.input<typeof SignInInput>;
type Errors = Partial<Record<Field, string>>;

/** Behaviour §2, §5 sign-in: organization (from the route or the last one used), username, password. */
export const SignInForm = ({ defaultOrganization }: { defaultOrganization: string }) => {
  const { t } = useTranslation();
  const auth = useAuthClient();
  const [values, setValues] = useState<Record<Field, string>>({ organization: defaultOrganization, username: '', password: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  // Off by default: a shared computer must not keep the last user's session (lib/auth/auth-client.ts).
  const [staySignedIn, setStaySignedIn] = useState(false);

  const change = (field: Field) => (value: string) => {
    setValues((current) => ({ ...current, [field]: value }));
  };

  const submit = async (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFailed(false);
    const parsed = SignInInput.safeParse(values);
    if (!parsed.success) {
      const fieldErrors = z.flattenError(parsed.error).fieldErrors;
      setErrors({
        organization: fieldErrors.organization?.[0],
        username: fieldErrors.username?.[0],
        password: fieldErrors.password?.[0],
      });
      const first = (['organization', 'username', 'password'] as const).find((field) => fieldErrors[field]);
      if (first) document.getElementById(`sign-in-${first}`)?.focus();
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      // The guard takes the user on once the session is authenticated.
      await auth.login(parsed.data, { staySignedIn });
    } catch {
      setFailed(true);
      setBusy(false);
    }
  };

  // Behaviour §5: every sign-in rule is "required" (min 1 after trim), so each failure reads validation.required.
  const message = (field: Field) => (errors[field] ? t('validation.required') : undefined);

  return (
    <Form noValidate onSubmit={(event) => void submit(event)} aria-busy={busy}>
      {failed ? (
        <Alert variant="danger" role="alert">
          {t('signInForm.error')}
        </Alert>
      ) : null}
      <FormField
        id="sign-in-organization"
        label={t('signInForm.organization')}
        value={values.organization}
        onValueChange={change('organization')}
        error={message('organization')}
        autoComplete="organization"
        identifier
      />
      <FormField
        id="sign-in-username"
        label={t('signInForm.username')}
        value={values.username}
        onValueChange={change('username')}
        error={message('username')}
        autoComplete="username"
        identifier
      />
      <FormField
        id="sign-in-password"
        label={t('signInForm.password')}
        type="password"
        value={values.password}
        onValueChange={change('password')}
        error={message('password')}
        autoComplete="current-password"
      />
      <Form.Group className="mb-3" controlId="sign-in-stay">
        <Form.Check
          className="stay-signed-in"
          checked={staySignedIn}
          onChange={(event) => {
            setStaySignedIn(event.target.checked);
          }}
          label={t('signInForm.staySignedIn')}
          aria-describedby="sign-in-stay-help"
        />
        <Form.Text id="sign-in-stay-help">{t('signInForm.staySignedInHelp')}</Form.Text>
      </Form.Group>
      <Button type="submit" className="w-100 mb-3" disabled={busy}>
        {busy ? <Spinner size="sm" /> : null} {t('signInForm.submit')}
      </Button>
      <div className="d-flex flex-wrap justify-content-between gap-2 small">
        <Link to={paths.restorePassword.getHref()}>{t('signInForm.forgotPassword')}</Link>
        <Link to={paths.signUp.getHref()}>{t('signInForm.signUp')}</Link>
      </div>
    </Form>
  );
};
