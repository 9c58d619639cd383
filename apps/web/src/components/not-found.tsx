import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../config/paths.ts';
import { PageTitle } from './page-title.tsx';

/**
 * Behaviour §2: anything else shows a not-found page with a back-to-home button. Laid out as every screen is (its h1
 * where theirs is), inside the app's frame for a signed-in user (components/layout/app-layout.tsx `SessionLayout`).
 */
export const NotFound = () => {
  const { t } = useTranslation();
  return (
    <>
      <PageTitle title={t('notFound.title')} />
      <p>{t('notFound.message')}</p>
      <Link to={paths.home.getHref()} className="btn btn-primary">
        {t('notFound.backHome')}
      </Link>
    </>
  );
};
