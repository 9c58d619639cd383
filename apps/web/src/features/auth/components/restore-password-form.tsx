import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Alert, Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { z } from 'zod';
import { paths } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useForgotPassword } from '../api/forgot-password.ts';
import { FormField } from './form-field.tsx';

/** Behaviour §5 forgot password: organization non-empty after trim ("Required"), a valid email ("Invalid email"). */
export const RestorePasswordInput = z.object({
  organization: z.string().trim().min(1, 'validation.required'),
  email: z.email('validation.invalidEmail'),
});
type Field = keyof z.input<typeof RestorePasswordInput>;

/**
 * Asks the server to mail a reset link (POST /user/password/forgot). The reply is the same whether or not the
 * account exists, so the confirmation is neutral; asking too often is said as such (429).
 */
export const RestorePasswordForm = ({ defaultOrganization }: { defaultOrganization: string }) => {
  const { t, i18n } = useTranslation();
  const [values, setValues] = useState<Record<Field, string>>({ organization: defaultOrganization, email: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, 'required' | 'email'>>>({});
  const [sent, setSent] = useState(false);
  const forgot = useForgotPassword();

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = RestorePasswordInput.safeParse({ ...values, email: values.email.trim() });
    if (!parsed.success) {
      const fieldErrors = z.flattenError(parsed.error).fieldErrors;
      setErrors({ organization: fieldErrors.organization ? 'required' : undefined, email: fieldErrors.email ? 'email' : undefined });
      document.getElementById(fieldErrors.organization ? 'restore-organization' : 'restore-email')?.focus();
      return;
    }
    setErrors({});
    const language = i18n.language.slice(0, 2).toUpperCase();
    forgot.mutate(
      { ...parsed.data, organization: parsed.data.organization.toLowerCase(), ...(language === 'FI' || language === 'SE' || language === 'EN' ? { language } : {}) },
      {
        onSuccess: () => {
          setSent(true);
        },
      },
    );
  };
  const failure = forgot.error
    ? isApiRequestError(forgot.error) && forgot.error.status === 429
      ? t('restorePassword.tooMany')
      : t('common.genericError')
    : null;

  if (sent) {
    return (
      <>
        <Alert variant="success" role="status">
          {t('restorePassword.sent')}
        </Alert>
        <Link to={paths.signIn.getHref()} className="btn btn-outline-primary w-100">
          {t('common.backToLogin')}
        </Link>
      </>
    );
  }

  return (
    <Form noValidate onSubmit={submit}>
      <p>{t('restorePassword.instructions')}</p>
      {failure && (
        <Alert variant="danger" role="alert">
          {failure}
        </Alert>
      )}
      <FormField
        id="restore-organization"
        label={t('signInForm.organization')}
        value={values.organization}
        onValueChange={(organization) => {
          setValues((current) => ({ ...current, organization }));
        }}
        error={errors.organization ? t('validation.required') : undefined}
        autoComplete="organization"
        identifier
      />
      <FormField
        id="restore-email"
        label={t('restorePassword.email')}
        type="email"
        value={values.email}
        onValueChange={(email) => {
          setValues((current) => ({ ...current, email }));
        }}
        error={errors.email ? t('validation.invalidEmail') : undefined}
        autoComplete="email"
      />
      <Button type="submit" className="w-100 mb-3" disabled={forgot.isPending}>
        {t('restorePassword.submit')}
      </Button>
      <Link to={paths.signIn.getHref()} className="small">
        {t('common.backToLogin')}
      </Link>
    </Form>
  );
};
