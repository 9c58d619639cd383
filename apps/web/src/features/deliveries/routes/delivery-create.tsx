import { useTranslation } from 'react-i18next';
import { PlaceholderPage } from '../../../components/placeholder-page.tsx';

/** Placeholder until this screen's feature is built; the route, its guard and its lazy chunk are in place. */
export const DeliveryCreateRoute = () => {
  const { t } = useTranslation();
  return <PlaceholderPage title={t('placeholder.deliveryCreate')} />;
};
