import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../lib/api-context.tsx';
import { useAuth } from '../lib/auth/auth-context.tsx';
import { usePush } from '../lib/push/push-context.tsx';

/**
 * What a signed-in session does with pushes on this device: a push that arrives while the console is in front
 * (offered by the service worker, or the mobile shell's foreground push) shows as a toast for 20 s (PUSH_TOAST_MS, behaviour §9);
 * and once per sign-in, a registration that logout ended or that is older than 7 days is renewed (behaviour §9). The
 * device, the toast and the renewal are chunks of their own, loaded after the first screen.
 */
export const PushSession = () => {
  const { user } = useAuth();
  const push = usePush();
  const api = useApi();
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);
  useEffect(() => {
    navigateRef.current = navigate;
  }, [navigate]);
  useEffect(
    () =>
      push.setOpener((path) => {
        void navigateRef.current(path);
      }),
    [push],
  );
  const renewedFor = useRef<string | null>(null);
  const userId = user?.sub;
  const realm = user?.realm;

  useEffect(() => {
    if (userId === undefined || realm === undefined) return;
    let ended = false;
    let stop: (() => void) | undefined;
    push
      .device()
      .then((device) => {
        if (ended) return;
        stop = device.onForegroundMessage((message) => {
          // Another organization's push (a device left subscribed by an earlier session) is not this session's.
          if (message.realm !== realm) return;
          void import('./push-toast.tsx').then(({ showPushToast }) => {
            showPushToast(message, push.open);
          });
        });
        if (renewedFor.current === userId) return;
        renewedFor.current = userId;
        return import('../features/settings/api/notifications.ts').then(({ renewRegistration }) => renewRegistration(api, device, { sub: userId, realm }));
      })
      .catch((error: unknown) => {
        // Pushes are a convenience: a device that cannot register leaves the console as it was.
        console.warn('Push registration could not be renewed', error);
      });
    return () => {
      ended = true;
      stop?.();
    };
  }, [push, api, userId, realm]);

  return null;
};
