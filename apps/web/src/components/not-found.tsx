import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../config/paths.ts';
import { MAIN_ID, SkipLink } from './layout/skip-link.tsx';
import { PageTitle } from './page-title.tsx';

/** Spec §2: anything else shows a not-found page with a back-to-home button. */
export const NotFound = () => {
  const { t } = useTranslation();
  const main = useRef<HTMLElement>(null);
  return (
    <>
      <SkipLink />
      <main id={MAIN_ID} ref={main} tabIndex={-1}>
        <div className="container py-5 text-center">
          <p className="display-4 fw-light text-primary" aria-hidden="true">
            404
          </p>
          <PageTitle title={t('notFound.title')} />
          <p>{t('notFound.message')}</p>
          <Link to={paths.home.getHref()} className="btn btn-primary">
            {t('notFound.backHome')}
          </Link>
        </div>
      </main>
    </>
  );
};
