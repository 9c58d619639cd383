import { useTranslation } from 'react-i18next';
import { PlaceholderPage } from '../../../components/placeholder-page.tsx';

/** Placeholder until this screen's feature is built; the route, its guard and its lazy chunk are in place. */
export const ProfileRoute = () => {
  const { t } = useTranslation();
  return <PlaceholderPage title={t('nav.profile')} />;
};
