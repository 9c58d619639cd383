import { Spinner as BootstrapSpinner } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';

/** An inline busy indicator with a spoken label. */
export const Spinner = ({ size }: { size?: 'sm' }) => {
  const { t } = useTranslation();
  return (
    <BootstrapSpinner animation="border" role="status" size={size}>
      <span className="visually-hidden">{t('common.loading')}</span>
    </BootstrapSpinner>
  );
};

/** Whole-page busy state (session restore, lazy screens). */
export const PageSpinner = () => (
  <div className="d-flex justify-content-center align-items-center py-5" data-testid="page-spinner">
    <Spinner />
  </div>
);
