import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { readSavedOrganization } from '../../../lib/storage.ts';
import { SignInForm } from '../components/sign-in-form.tsx';

export const SignInRoute = () => {
  const { t } = useTranslation();
  const { organization } = useParams();
  return (
    <>
      <PageTitle title={t('signInForm.title')} />
      <SignInForm defaultOrganization={organization ?? readSavedOrganization() ?? ''} />
    </>
  );
};
