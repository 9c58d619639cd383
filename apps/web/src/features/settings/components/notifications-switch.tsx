import { useState } from 'react';
import { Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import { Spinner } from '../../../components/spinner.tsx';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { errorMessage } from '../../../lib/error-message.ts';
import { registrationFailureOf } from '../../../lib/push/push-errors.ts';
import type { PushRegistrationFailure } from '../../../lib/push/push-errors.ts';
import { toast } from '../../../lib/toast.ts';
import { useSwitchNotifications } from '../api/notifications.ts';
import { readNotificationsEnabled } from '../notifications.ts';

/** What the switch says, beside it, when this device could not be switched: what happened and what to do. */
const FAILURE_KEYS: Record<PushRegistrationFailure, ParseKeys> = {
  denied: 'settings.notificationsDenied',
  unsupported: 'settings.notificationsUnsupported',
  'no-push-service': 'settings.notificationsNoPushService',
  timeout: 'settings.notificationsTimeout',
  failed: 'settings.notificationsFailed',
};

/**
 * Behaviour §4: on registers this device for pushes (the browser's permission, a Web Push subscription) and subscribes
 * it to the user's and the organization's topics; off unsubscribes from both and ends the subscription. While it
 * works a spinner says so; each step is bounded (web-push-device.ts), so it ends on or with a reason.
 */
export const NotificationsSwitch = () => {
  const { t } = useTranslation();
  const user = useSessionUser();
  const [enabled, setEnabled] = useState(() => readNotificationsEnabled(user.sub));
  const [failure, setFailure] = useState<string | null>(null);
  const notifications = useSwitchNotifications(user);

  const onChange = (next: boolean) => {
    setFailure(null);
    notifications.mutate(next, {
      onSuccess: () => {
        setEnabled(next);
        toast.success(t(next ? 'notifications.enabled' : 'notifications.disabled'));
      },
      onError: (error) => {
        // The server's refusal or an unreachable server says so in its own words; the device's, by its kind.
        setFailure(isApiRequestError(error) ? errorMessage(t, error, FAILURE_KEYS.failed) : t(FAILURE_KEYS[registrationFailureOf(error)]));
      },
    });
  };

  return (
    <section aria-labelledby="settings-notifications-heading">
      <h2 id="settings-notifications-heading" className="h5 mb-3">
        {t('settings.notifications')}
      </h2>
      <div className="d-flex align-items-center gap-2">
        <Form.Check
          type="switch"
          id="settings-notifications-switch"
          role="switch"
          label={t('settings.notificationsSwitch')}
          checked={enabled}
          disabled={notifications.isPending}
          aria-describedby={failure ? 'settings-notifications-help settings-notifications-refusal' : 'settings-notifications-help'}
          onChange={(event) => {
            onChange(event.target.checked);
          }}
        />
        {notifications.isPending ? (
          <span className="d-inline-flex align-items-center gap-1 text-body-secondary small" data-testid="notifications-busy">
            <Spinner size="sm" />
            <span aria-hidden="true">{t('settings.notificationsWorking')}</span>
          </span>
        ) : null}
      </div>
      <Form.Text id="settings-notifications-help">{t('settings.notificationsHelp')}</Form.Text>
      {failure ? (
        <div id="settings-notifications-refusal" role="alert" className="invalid-feedback d-block">
          {failure}
        </div>
      ) : null}
    </section>
  );
};
