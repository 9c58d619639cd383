import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { returnPathOf } from '../../../lib/return-path.ts';
import { paths } from '../../../config/paths.ts';
import { ChangePasswordForm } from '../components/change-password-form.tsx';

/** Where the console sends a user whose password an admin set, before anything else (components/guards.tsx). */
export const ChangePasswordRoute = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  return (
    <>
      <PageTitle title={t('changePassword.title')} />
      <ChangePasswordForm
        onDone={() => {
          void navigate(returnPathOf(location.state) ?? paths.home.getHref(), { replace: true });
        }}
      />
    </>
  );
};
