import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { ResetPasswordForm } from '../components/reset-password-form.tsx';

export const ResetPasswordRoute = () => {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  return (
    <>
      <PageTitle title={t('resetPassword.title')} />
      <ResetPasswordForm token={search.get('token') ?? ''} />
    </>
  );
};
