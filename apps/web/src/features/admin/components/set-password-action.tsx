import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { User } from '@uvd/contracts';
import { errorMessage } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { setPasswordInputSchema, useSetUserPassword } from '../api/set-user-password.ts';
import { AddModal } from './add-modal.tsx';

/** A user row's "Set password": the admin gives a password the user must change at their next sign-in. */
export const SetPasswordAction = ({ user }: { user: User }) => {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const setPassword = useSetUserPassword();
  return (
    <>
      <Button
        variant="outline-primary"
        size="sm"
        aria-label={t('setPassword.buttonNamed', { name: user.username })}
        onClick={() => {
          setOpen(true);
        }}
      >
        {t('setPassword.button')}
      </Button>
      <AddModal
        show={open}
        title={t('setPassword.title', { name: user.username })}
        submitLabel={t('setPassword.submit')}
        fields={[{ name: 'password', label: t('setPassword.password'), error: t('addUser.passwordError'), type: 'password', autoComplete: 'new-password' }]}
        schema={setPasswordInputSchema}
        onSubmit={async ({ password }) => {
          try {
            await setPassword.mutateAsync({ userId: user.id, password });
            toast.success(t('setPassword.done', { name: user.username }));
          } catch (error) {
            toast.error(errorMessage(t, error, 'setPassword.failed'));
          }
        }}
        onClose={() => {
          setOpen(false);
        }}
      >
        <p className="small text-body-secondary mb-0">{t('setPassword.explanation')}</p>
      </AddModal>
    </>
  );
};
