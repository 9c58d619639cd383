import { useTranslation } from 'react-i18next';

export const MAIN_ID = 'main-content';

export const SkipLink = () => {
  const { t } = useTranslation();
  return (
    <a href={`#${MAIN_ID}`} className="visually-hidden-focusable skip-link">
      {t('layout.skipToContent')}
    </a>
  );
};
