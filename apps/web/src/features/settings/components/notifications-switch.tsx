import { useState } from 'react';
import { Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { toast } from '../../../lib/toast.ts';
import { useSetSubscriptions } from '../api/notifications.ts';
import { readNotificationsEnabled, saveNotificationsEnabled } from '../notifications.ts';

/** Spec §4: on subscribes this device to the user's and the organization's topics; off unsubscribes from both. */
export const NotificationsSwitch = () => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const [enabled, setEnabled] = useState(() => readNotificationsEnabled(user.sub));
  const subscriptions = useSetSubscriptions([user.sub, user.realm]);

  const onChange = (next: boolean) => {
    subscriptions.mutate(next, {
      onSuccess: () => {
        saveNotificationsEnabled(user.sub, next);
        setEnabled(next);
        toast.success(t(next ? 'notifications.enabled' : 'notifications.disabled'));
      },
      onError: () => {
        toast.error(t('settings.notificationsFailed'));
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
        disabled={subscriptions.isPending}
        aria-describedby="settings-notifications-help"
        onChange={(event) => {
          onChange(event.target.checked);
        }}
      />
      <Form.Text id="settings-notifications-help">{t('settings.notificationsHelp')}</Form.Text>
    </section>
  );
};
