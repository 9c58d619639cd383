import { useTranslation } from 'react-i18next';

/**
 * An inline busy indicator with a spoken label. Plain Bootstrap markup: the frame renders it on every load, and
 * react-bootstrap's component would bring its runtime into the initial bundle.
 */
export const Spinner = ({ size }: { size?: 'sm' }) => {
  const { t } = useTranslation();
  return (
    <span className={size === 'sm' ? 'spinner-border spinner-border-sm' : 'spinner-border'} role="status">
      <span className="visually-hidden">{t('common.loading')}</span>
    </span>
  );
};

/** Whole-page busy state (session restore, lazy screens). */
export const PageSpinner = () => (
  <div className="d-flex justify-content-center align-items-center py-5" data-testid="page-spinner">
    <Spinner />
  </div>
);
