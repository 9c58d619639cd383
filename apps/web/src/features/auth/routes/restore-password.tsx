import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/page-title.tsx';
import { readSavedOrganization } from '../../../lib/storage.ts';
import { RestorePasswordForm } from '../components/restore-password-form.tsx';

export const RestorePasswordRoute = () => {
  const { t } = useTranslation();
  return (
    <>
      <PageTitle title={t('restorePassword.title')} />
      <RestorePasswordForm defaultOrganization={readSavedOrganization() ?? ''} />
    </>
  );
};
