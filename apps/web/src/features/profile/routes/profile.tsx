import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/page-title.tsx';
import { ContactList } from '../components/contact-list.tsx';
import { UserInfo } from '../components/user-info.tsx';

/** Spec §2 profile: the signed-in user's information and the organization's contacts. */
export const ProfileRoute = () => {
  const { t } = useTranslation();
  return (
    <>
      <PageTitle title={t('profileInfo.title')} />
      <UserInfo />
      <ContactList />
    </>
  );
};
