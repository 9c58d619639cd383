import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { ContactList } from '../components/contact-list.tsx';
import { UserInfo } from '../components/user-info.tsx';

/** Behaviour §2 profile: the signed-in user's information and the organization's contacts, and where to change the password. */
export const ProfileRoute = () => {
  const { t } = useTranslation();
  const { pathname, search, hash } = useLocation();
  return (
    <>
      <PageTitle title={t('profileInfo.title')} />
      <UserInfo />
      <Link to={paths.changePassword.getHref()} state={{ from: { pathname, search, hash } }} className="btn btn-outline-primary mb-4">
        {t('changePassword.own.link')}
      </Link>
      <ContactList />
    </>
  );
};
