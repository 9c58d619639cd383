import { ToastContainer } from 'react-toastify';
import { TOAST_AUTO_CLOSE_MS, TOAST_LIMIT, TOAST_POSITION } from '../lib/toast.ts';

export const Toasts = () => (
  <ToastContainer position={TOAST_POSITION} autoClose={TOAST_AUTO_CLOSE_MS} limit={TOAST_LIMIT} newestOnTop theme="colored" />
);
