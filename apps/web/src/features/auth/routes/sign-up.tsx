import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';

/** Behaviour §2 sign-up: accounts are not self-service; text and a way back. */
export const SignUpRoute = () => {
  const { t } = useTranslation();
  return (
    <>
      <PageTitle title={t('signUp.title')} />
      <p>{t('signUp.users')}</p>
      <p>{t('signUp.admins')}</p>
      <Link to={paths.signIn.getHref()} className="btn btn-primary w-100">
        {t('common.backToLogin')}
      </Link>
    </>
  );
};
