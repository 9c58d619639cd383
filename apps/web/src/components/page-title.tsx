import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The screen's h1, also used as the document title so tabs and screen readers name the screen. */
export const PageTitle = ({ title, children }: { title: string; children?: ReactNode }) => {
  const { t } = useTranslation();
  const product = t('app.name');
  useEffect(() => {
    document.title = `${title} · ${product}`;
  }, [title, product]);
  return (
    <div className="d-flex flex-wrap align-items-center justify-content-between gap-2 mb-4">
      <h1 className="h3 mb-0">{title}</h1>
      {children}
    </div>
  );
};
