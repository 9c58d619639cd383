import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { DeliveryStatus, FINAL_DELIVERY_STATUSES } from '@uvd/contracts';
import type { DeliveryDetail } from '@uvd/contracts';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { toast } from '../../../lib/toast.ts';
import { useDeliveryAction } from '../api/delivery-commands.ts';
import type { DeliveryActionKind } from '../api/delivery-commands.ts';
import { deliveryErrorText } from '../api/delivery-refusal.ts';
import { HandoffForm } from './handoff-form.tsx';

const LABEL_KEYS = {
  pause: 'deliveries.actions.pause',
  resume: 'deliveries.actions.resume',
  cancel: 'deliveries.actions.cancel',
  loaded: 'deliveries.actions.loaded',
} as const satisfies Record<DeliveryActionKind, string>;

const SUCCESS_KEYS = {
  pause: 'deliveries.actions.pauseSent',
  resume: 'deliveries.actions.resumeSent',
  cancel: 'deliveries.actions.cancelled',
  loaded: 'deliveries.actions.loadedSent',
} as const satisfies Record<DeliveryActionKind, string>;

const FAIL_KEYS = {
  pause: 'deliveries.actions.pauseFailed',
  resume: 'deliveries.actions.resumeFailed',
  cancel: 'deliveries.actions.cancelFailed',
  loaded: 'deliveries.actions.loadedFailed',
} as const satisfies Record<DeliveryActionKind, string>;

/**
 * What a delivery offers by its status: pause while In transit or Waiting, resume while Paused, confirm loading
 * while the robot waits at the pickup, cancel until it is Delivered or Cancelled. A command the robot has not
 * confirmed yet (pending_command) offers nothing else until it does.
 */
export const offeredActions = (delivery: DeliveryDetail): DeliveryActionKind[] => {
  if (FINAL_DELIVERY_STATUSES.includes(delivery.status)) return [];
  const kinds: DeliveryActionKind[] = [];
  if (delivery.status === DeliveryStatus.waiting && delivery.waiting_for === 'loading') kinds.push('loaded');
  if (delivery.robot_id && !delivery.pending_command) {
    if (delivery.status === DeliveryStatus.inTransit || delivery.status === DeliveryStatus.waiting) kinds.push('pause');
    if (delivery.status === DeliveryStatus.paused) kinds.push('resume');
  }
  if (delivery.pending_command !== 'cancel') kinds.push('cancel');
  return kinds;
};

/** The detail's actions, the PIN while the robot waits for the recipient, and why a command was refused. */
export const DeliveryActions = ({ delivery }: { delivery: DeliveryDetail }) => {
  const { t } = useTranslation();
  const action = useDeliveryAction();
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const waitingForRecipient = delivery.status === DeliveryStatus.waiting && delivery.waiting_for === 'recipient';

  const run = (kind: DeliveryActionKind) => {
    setRefusal(null);
    action.mutate(
      { deliveryId: delivery.delivery_id, kind },
      {
        onSuccess: () => {
          toast.success(t(SUCCESS_KEYS[kind]));
        },
        onError: (error) => {
          setRefusal(deliveryErrorText(t, error, FAIL_KEYS[kind]));
        },
        onSettled: () => {
          setConfirmCancel(false);
        },
      },
    );
  };

  return (
    <section className="mb-4" aria-labelledby="delivery-actions-heading">
      <h2 className="h5 visually-hidden" id="delivery-actions-heading">
        {t('deliveries.actionsHeading')}
      </h2>
      {waitingForRecipient && delivery.handoff_locked ? (
        <div className="alert alert-danger" role="alert" data-testid="delivery-handoff-locked">
          {t('deliveries.refusals.handoff_locked')}
        </div>
      ) : null}
      {waitingForRecipient && !delivery.handoff_locked ? <HandoffForm delivery={delivery} /> : null}
      <div className="d-flex flex-wrap gap-2">
        {offeredActions(delivery).map((kind) => (
          <Button
            key={kind}
            variant={kind === 'cancel' ? 'outline-danger' : kind === 'loaded' ? 'primary' : 'outline-primary'}
            disabled={action.isPending}
            onClick={() => {
              if (kind === 'cancel') setConfirmCancel(true);
              else run(kind);
            }}
          >
            {t(LABEL_KEYS[kind])}
          </Button>
        ))}
      </div>
      {refusal ? (
        <div className="alert alert-danger mt-2 mb-0" role="alert" data-testid="delivery-refusal">
          {refusal}
        </div>
      ) : null}
      <ConfirmDialog
        show={confirmCancel}
        title={t('deliveries.actions.confirmCancel')}
        body={t('deliveries.actions.confirmCancelBody', { from: delivery.pickup.name, to: delivery.dropoff.name })}
        confirmLabel={t('deliveries.actions.cancel')}
        variant="danger"
        busy={action.isPending}
        onConfirm={() => {
          run('cancel');
        }}
        onCancel={() => {
          setConfirmCancel(false);
        }}
      />
    </section>
  );
};
