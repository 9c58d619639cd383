/** Spec §9 toasts: bottom-center, 3000 ms, at most 3 on screen. */
export const TOAST_POSITION = 'bottom-center';
export const TOAST_AUTO_CLOSE_MS = 3000;
export const TOAST_LIMIT = 3;
export { toast } from 'react-toastify';
