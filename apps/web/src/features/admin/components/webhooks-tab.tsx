import type { CreatedWebhook, Webhook } from '@uvd/contracts';
import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { toast } from '../../../lib/toast.ts';
import { useDeleteWebhook } from '../api/delete-webhook.ts';
import { useWebhooks } from '../api/get-webhooks.ts';
import { useTestWebhook } from '../api/test-webhook.ts';
import { useUpdateWebhook } from '../api/update-webhook.ts';
import { AdminList } from './admin-list.tsx';
import { EVENT_KEY, WebhookCreateModal } from './webhook-create-modal.tsx';
import { WebhookSecretDialog } from './webhook-secret-dialog.tsx';

/** Whole class names: the build keeps only Bootstrap rules whose class the source names. */
const STATUS_CLASS: Record<NonNullable<Webhook['last_delivery']>['status'], string> = {
  sent: 'badge text-bg-success',
  retrying: 'badge text-bg-warning',
  failed: 'badge text-bg-danger',
};

/**
 * The Webhooks tab of the admin dashboard (issue #24 item 6): the organization's endpoints with their events,
 * whether they are on and how the last delivery went; register one (its secret shown once), switch it on or off,
 * send it a test event, delete it after a confirmation.
 */
export const WebhooksTab = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const webhooks = useWebhooks();
  const update = useUpdateWebhook();
  const test = useTestWebhook();
  const remove = useDeleteWebhook();
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);

  const lastDelivery = (webhook: Webhook) => {
    const last = webhook.last_delivery;
    if (!last) return t('webhooks.neverDelivered');
    const status = t(`webhooks.status.${last.status}`);
    const http = last.http_status === null ? '' : ` (HTTP ${String(last.http_status)})`;
    return `${status}${http}, ${formatDateTime(last.at, timezone)}`;
  };
  const eventsText = (webhook: Webhook) => webhook.events.map((event) => t(`webhooks.event.${EVENT_KEY[event]}`)).join(', ');
  const enabledText = (webhook: Webhook) => t(webhook.enabled ? 'webhooks.enabled' : 'webhooks.disabled');

  const setEnabled = async (webhook: Webhook) => {
    try {
      await update.mutateAsync({ id: webhook.id, body: { enabled: !webhook.enabled } });
      toast.success(t(webhook.enabled ? 'webhooks.disabledToast' : 'webhooks.enabledToast', { url: webhook.url }));
    } catch {
      toast.error(t('webhooks.notUpdated'));
    }
  };
  const sendTest = async (webhook: Webhook) => {
    try {
      await test.mutateAsync(webhook.id);
      toast.success(t('webhooks.testQueued', { url: webhook.url }));
    } catch {
      toast.error(t('webhooks.testFailed'));
    }
  };

  return (
    <>
      <p className="text-body-secondary">{t('webhooks.intro')}</p>
      <AdminList<Webhook>
        name="webhook"
        items={webhooks.data}
        loading={webhooks.isPending}
        failed={webhooks.isError}
        columns={[
          { header: t('webhooks.column.url'), cell: (webhook) => <span className="font-monospace text-break">{webhook.url}</span>, text: (webhook) => webhook.url },
          { header: t('webhooks.column.description'), cell: (webhook) => webhook.description, text: (webhook) => webhook.description },
          { header: t('webhooks.column.events'), cell: eventsText, text: eventsText },
          { header: t('webhooks.column.enabled'), cell: enabledText, text: enabledText },
          {
            header: t('webhooks.column.lastDelivery'),
            cell: (webhook) =>
              webhook.last_delivery ? (
                <>
                  <span className={STATUS_CLASS[webhook.last_delivery.status]}>{t(`webhooks.status.${webhook.last_delivery.status}`)}</span>{' '}
                  {webhook.last_delivery.http_status === null ? null : <span className="small">HTTP {webhook.last_delivery.http_status}</span>}{' '}
                  <time className="small text-body-secondary" dateTime={webhook.last_delivery.at}>
                    {formatDateTime(webhook.last_delivery.at, timezone)}
                  </time>
                </>
              ) : (
                <span className="text-body-secondary">{t('webhooks.neverDelivered')}</span>
              ),
            text: lastDelivery,
          },
        ]}
        idOf={(webhook) => webhook.id}
        labelOf={(webhook) => webhook.url}
        extraAction={(webhook) => (
          <span className="d-inline-flex flex-wrap gap-2 justify-content-end align-items-end">
            <Button
              variant="outline-secondary"
              size="sm"
              disabled={update.isPending}
              aria-label={t(webhook.enabled ? 'webhooks.disableNamed' : 'webhooks.enableNamed', { url: webhook.url })}
              onClick={() => void setEnabled(webhook)}
            >
              {t(webhook.enabled ? 'webhooks.disable' : 'webhooks.enable')}
            </Button>
            <Button
              variant="outline-primary"
              size="sm"
              disabled={test.isPending}
              aria-label={t('webhooks.testNamed', { url: webhook.url })}
              onClick={() => void sendTest(webhook)}
            >
              {t('webhooks.test')}
            </Button>
          </span>
        )}
        onAdd={() => {
          setAdding(true);
        }}
        onDelete={async (webhook) => {
          try {
            await remove.mutateAsync(webhook.id);
            toast.success(t('webhooks.deleted'));
          } catch {
            toast.error(t('webhooks.notDeleted'));
          }
        }}
      />
      <WebhookCreateModal
        show={adding}
        onClose={() => {
          setAdding(false);
        }}
        onCreated={(webhook) => {
          toast.success(t('webhooks.created'));
          setCreated(webhook);
        }}
      />
      <WebhookSecretDialog
        webhook={created}
        onClose={() => {
          setCreated(null);
        }}
      />
    </>
  );
};
