import { useTranslation } from 'react-i18next';
import { ToastContainer } from 'react-toastify';
import type { CloseButtonProps } from 'react-toastify';
import { TOAST_AUTO_CLOSE_MS, TOAST_LIMIT, TOAST_POSITION } from '../lib/toast.ts';
import './toasts.css';

/** Every toast can be closed: a real button, named in the user's language, 44 px on a phone (toasts.css). */
const CloseButton = ({ closeToast }: CloseButtonProps) => {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className="toast-close btn-close btn-close-white"
      aria-label={t('toasts.close')}
      data-testid="toast-close"
      onClick={(event) => {
        event.stopPropagation();
        closeToast(true);
      }}
    />
  );
};

/**
 * The limit is behaviour §9's 3 at every size; on a phone toasts.css shows only the newest, so toasts never stack over
 * the rows and paging (the older ones keep their time and expire unseen).
 */
export const Toasts = () => (
  <ToastContainer
    position={TOAST_POSITION}
    autoClose={TOAST_AUTO_CLOSE_MS}
    limit={TOAST_LIMIT}
    newestOnTop
    theme="colored"
    closeButton={CloseButton}
  />
);
