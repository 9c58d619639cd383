import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { HANDOFF_PIN_LENGTH } from '@uvd/contracts';
import type { DeliveryDetail } from '@uvd/contracts';
import { Spinner } from '../../../components/spinner.tsx';
import { useHandoff } from '../api/delivery-commands.ts';
import { attemptsLeftOf, deliveryErrorText } from '../api/delivery-refusal.ts';

/**
 * The recipient's PIN while the robot waits at the drop-off: a wrong PIN says how many attempts are left; the
 * third locks the hand-off (the screen then says who can help).
 */
export const HandoffForm = ({ delivery }: { delivery: DeliveryDetail }) => {
  const { t } = useTranslation();
  const handoff = useHandoff();
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState(false);

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const entered = pin.trim();
    if (!/^\d+$/.test(entered)) {
      setInvalid(true);
      setError(t('deliveries.pinFormat', { length: HANDOFF_PIN_LENGTH }));
      return;
    }
    setInvalid(false);
    setError(null);
    handoff.mutate(
      { deliveryId: delivery.delivery_id, pin: entered },
      {
        onSuccess: () => {
          setPin('');
        },
        onError: (failure) => {
          setPin('');
          setInvalid(attemptsLeftOf(failure) !== null);
          setError(deliveryErrorText(t, failure, 'deliveries.handoffFailed'));
        },
      },
    );
  };

  return (
    <Form noValidate onSubmit={submit} className="mb-3" aria-labelledby="delivery-pin-heading">
      <h3 className="h6" id="delivery-pin-heading">
        {t('deliveries.enterPin')}
      </h3>
      <p className="small mb-2">{t('deliveries.pinHint')}</p>
      <div className="d-flex flex-wrap align-items-start gap-2">
        <Form.Group controlId="delivery-pin">
          <Form.Label className="visually-hidden">{t('deliveries.pin')}</Form.Label>
          <Form.Control
            value={pin}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={12}
            className="delivery-pin-input"
            isInvalid={invalid}
            aria-invalid={invalid}
            aria-describedby={error ? 'delivery-pin-error' : undefined}
            disabled={handoff.isPending}
            onChange={(event) => {
              setPin(event.target.value);
            }}
          />
        </Form.Group>
        <Button type="submit" disabled={handoff.isPending}>
          {handoff.isPending ? <Spinner size="sm" /> : null} {t('deliveries.confirmPin')}
        </Button>
      </div>
      {error ? (
        <div className="alert alert-danger mt-2 mb-0" role="alert" id="delivery-pin-error" data-testid="delivery-pin-error">
          {error}
        </div>
      ) : null}
    </Form>
  );
};
