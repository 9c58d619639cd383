import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { returnPathOf } from '../../../lib/return-path.ts';
import { paths } from '../../../config/paths.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { toast } from '../../../lib/toast.ts';
import { ChangePasswordForm } from '../components/change-password-form.tsx';

/**
 * Where the console sends a user whose password was given to them (by an admin, or admin:create), before anything
 * else (components/guards.tsx), and where a user changes their own from the profile; either way they go back where
 * they came from.
 */
export const ChangePasswordRoute = () => {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const given = useSessionUser().must_change_password;
  const back = () => {
    void navigate(returnPathOf(location.state) ?? (given ? paths.home.getHref() : paths.profile.getHref()), { replace: true });
  };
  return (
    <>
      <PageTitle title={given ? t('changePassword.title') : t('changePassword.own.title')} />
      <ChangePasswordForm
        onDone={() => {
          if (!given) toast.success(t('changePassword.own.done'));
          back();
        }}
        onCancel={back}
      />
    </>
  );
};
