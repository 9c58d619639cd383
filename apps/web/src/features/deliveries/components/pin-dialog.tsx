import { Button, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';

/**
 * The hand-off PIN of a new delivery, shown once: the sender gives it to the recipient (who also gets it by push).
 * Closed only by its button, which opens the delivery.
 */
export const PinDialog = ({ pin, onDone }: { pin: string | null; onDone: () => void }) => {
  const { t } = useTranslation();
  return (
    <Modal show={pin !== null} onHide={onDone} backdrop="static" centered aria-labelledby="delivery-pin-dialog-title" aria-describedby="delivery-pin-dialog-body">
      <Modal.Header>
        <Modal.Title id="delivery-pin-dialog-title" as="h2" className="h5">
          {t('deliveries.created.title')}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body id="delivery-pin-dialog-body">
        <p className="mb-1">{t('deliveries.created.pinLabel')}</p>
        <p className="display-5 fw-bold font-monospace mb-3">
          <span aria-hidden="true" data-testid="delivery-created-pin">
            {pin}
          </span>
          <span className="visually-hidden">{(pin ?? '').split('').join(' ')}</span>
        </p>
        <p className="mb-0">{t('deliveries.created.pinHint')}</p>
      </Modal.Body>
      <Modal.Footer>
        <Button onClick={onDone} autoFocus>
          {t('deliveries.created.open')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
};
