import { useState } from 'react';
import { Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { registrationFailureOf } from '../../../lib/push/push-errors.ts';
import type { PushRegistrationFailure } from '../../../lib/push/push-errors.ts';
import { toast } from '../../../lib/toast.ts';
import { useSwitchNotifications } from '../api/notifications.ts';
import { readNotificationsEnabled } from '../notifications.ts';

/** What the switch says when this device cannot register; other failures are a toast (spec §8 style). */
const REFUSAL_KEYS = {
  denied: 'settings.notificationsDenied',
  unsupported: 'settings.notificationsUnsupported',
} as const;

/**
 * Spec §4: on registers this device for pushes (the browser's permission, a Web Push subscription) and subscribes
 * it to the user's and the organization's topics; off unsubscribes from both and ends the subscription.
 */
export const NotificationsSwitch = () => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const [enabled, setEnabled] = useState(() => readNotificationsEnabled(user.sub));
  const [refusal, setRefusal] = useState<Exclude<PushRegistrationFailure, 'failed'> | null>(null);
  const notifications = useSwitchNotifications(user);

  const onChange = (next: boolean) => {
    setRefusal(null);
    notifications.mutate(next, {
      onSuccess: () => {
        setEnabled(next);
        toast.success(t(next ? 'notifications.enabled' : 'notifications.disabled'));
      },
      onError: (error) => {
        const failure = registrationFailureOf(error);
        if (failure === 'failed') toast.error(t('settings.notificationsFailed'));
        else setRefusal(failure);
      },
    });
  };

  return (
    <section aria-labelledby="settings-notifications-heading">
      <h2 id="settings-notifications-heading" className="h5 mb-3">
        {t('settings.notifications')}
      </h2>
      <Form.Check
        type="switch"
        id="settings-notifications-switch"
        role="switch"
        label={t('settings.notificationsSwitch')}
        checked={enabled}
        disabled={notifications.isPending}
        aria-describedby={refusal ? 'settings-notifications-help settings-notifications-refusal' : 'settings-notifications-help'}
        onChange={(event) => {
          onChange(event.target.checked);
        }}
      />
      <Form.Text id="settings-notifications-help">{t('settings.notificationsHelp')}</Form.Text>
      {refusal ? (
        <div id="settings-notifications-refusal" role="alert" className="invalid-feedback d-block">
          {t(REFUSAL_KEYS[refusal])}
        </div>
      ) : null}
    </section>
  );
};
