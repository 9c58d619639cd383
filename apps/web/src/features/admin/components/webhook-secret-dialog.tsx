import type { CreatedWebhook } from '@uvd/contracts';
import { useState } from 'react';
import { Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';

interface WebhookSecretDialogProps {
  webhook: CreatedWebhook | null;
  onClose: () => void;
}

/**
 * The signing secret of a new webhook, the one time the server tells it (it keeps no readable copy to show again):
 * selectable text, a Copy button, and a note saying so.
 */
export const WebhookSecretDialog = ({ webhook, onClose }: WebhookSecretDialogProps) => {
  const { t } = useTranslation();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const close = () => {
    setCopied(null);
    onClose();
  };
  const copy = async () => {
    if (!webhook) return;
    try {
      await navigator.clipboard.writeText(webhook.secret);
      setCopied('yes');
    } catch {
      // No clipboard (plain HTTP, or permission refused): the text stays selectable.
      setCopied('failed');
    }
  };
  return (
    <Modal show={webhook !== null} onHide={close} centered backdrop="static" aria-labelledby="webhook-secret-title" aria-describedby="webhook-secret-note">
      <Modal.Header closeButton closeLabel={t('common.close')}>
        <Modal.Title id="webhook-secret-title" as="h2" className="h5">
          {t('webhooks.secret.title')}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        <p className="text-break">{t('webhooks.secret.for', { url: webhook?.url ?? '' })}</p>
        <Form.Group controlId="webhook-secret">
          <Form.Label>{t('webhooks.secret.label')}</Form.Label>
          <div className="d-flex gap-2">
            <Form.Control
              readOnly
              className="font-monospace"
              value={webhook?.secret ?? ''}
              onFocus={(event) => {
                event.target.select();
              }}
            />
            <Button variant="outline-primary" className="text-nowrap" onClick={() => void copy()}>
              {t('webhooks.secret.copy')}
            </Button>
          </div>
        </Form.Group>
        <p className="small mt-1 mb-3" role="status">
          {copied === 'yes' ? t('webhooks.secret.copied') : copied === 'failed' ? t('webhooks.secret.copyFailed') : null}
        </p>
        <div className="alert alert-warning mb-0" id="webhook-secret-note">
          {t('webhooks.secret.once')}
        </div>
      </Modal.Body>
      <Modal.Footer>
        <Button variant="primary" onClick={close}>
          {t('webhooks.secret.done')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
};
