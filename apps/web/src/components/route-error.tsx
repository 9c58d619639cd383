import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';
import { PageTitle } from './page-title.tsx';

/** A screen that failed to load or render: say so and offer a reload, never a blank page. */
export const RouteError = () => {
  const { t } = useTranslation();
  const error = useRouteError();
  return (
    <main>
      <div className="container py-5">
        <PageTitle title={t('routeError.title')} />
        <p>{t('routeError.message')}</p>
        {import.meta.env.DEV && error instanceof Error ? <pre className="small text-danger">{error.message}</pre> : null}
        <button type="button" className="btn btn-primary" onClick={() => {
            window.location.reload();
          }}>
          {t('routeError.reload')}
        </button>
      </div>
    </main>
  );
};
