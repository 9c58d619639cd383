import { useTranslation } from 'react-i18next';
import { PageTitle } from './page-title.tsx';

/** A screen whose feature is not built yet: its translated title and a short note. */
export const PlaceholderPage = ({ title }: { title: string }) => {
  const { t } = useTranslation();
  return (
    <>
      <PageTitle title={title} />
      <p className="text-body-secondary">{t('placeholder.comingSoon')}</p>
    </>
  );
};
