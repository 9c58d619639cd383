import { Button, Modal } from 'react-bootstrap';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Spinner } from './spinner.tsx';

export interface ConfirmDialogProps {
  show: boolean;
  title: ReactNode;
  body?: ReactNode;
  confirmLabel?: ReactNode;
  /** Destructive commands (delete, stop) get the danger colour. */
  variant?: 'primary' | 'danger';
  busy?: boolean;
  /** A class of the dialog, for a caller's own sizing. */
  className?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Behaviour §4: every command asks for confirmation in a dialog first. */
export const ConfirmDialog = ({ show, title, body, confirmLabel, variant = 'primary', busy = false, className, onConfirm, onCancel }: ConfirmDialogProps) => {
  const { t } = useTranslation();
  return (
    <Modal show={show} onHide={onCancel} centered aria-labelledby="confirm-dialog-title" className={className}>
      <Modal.Header closeButton closeLabel={t('common.close')}>
        <Modal.Title id="confirm-dialog-title" as="h2" className="h5">
          {title}
        </Modal.Title>
      </Modal.Header>
      {body ? <Modal.Body>{body}</Modal.Body> : null}
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={onCancel} disabled={busy}>
          {t('common.cancel')}
        </Button>
        <Button variant={variant} onClick={onConfirm} disabled={busy}>
          {busy ? <Spinner size="sm" /> : null} {confirmLabel ?? t('common.confirm')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
};
