import { Badge } from 'react-bootstrap';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { CUSTODY_DETAIL_WORDS, DeliveryStatus, LATE_DETAIL_SUFFIX } from '@uvd/contracts';
import type { Delivery } from '@uvd/contracts';

/** The status in words: Waiting says what for (loading at the pickup, the recipient at the drop-off). */
export const deliveryStatusLabel = (t: TFunction, delivery: Pick<Delivery, 'status' | 'waiting_for'>): string =>
  delivery.status === DeliveryStatus.waiting && delivery.waiting_for
    ? t(`deliveries.waitingFor.${delivery.waiting_for}`)
    : t(`deliveryStatus.${delivery.status}`);

/**
 * A custody step's detail or a Blocked reason in the user's words: the server's own words (console, robot, pickup,
 * a reason code, who an escalation told, late) are translated; anything else is shown as sent.
 */
export const detailText = (t: TFunction, detail: string): string => {
  const late = detail.endsWith(LATE_DETAIL_SUFFIX);
  const word = late ? detail.slice(0, -LATE_DETAIL_SUFFIX.length) : detail;
  const known = CUSTODY_DETAIL_WORDS.find((candidate) => candidate === word);
  if (!known) return detail;
  const text = t(`deliveries.stepDetails.${known}`);
  return late ? t('deliveries.lateDetail', { who: text }) : text;
};

/** "2 × Blood sample +1 more": the first item and how many others. */
export const itemsSummary = (t: TFunction, items: Delivery['items']): string => {
  const [first, ...rest] = items;
  if (!first) return '';
  const head = t('deliveries.itemLine', { quantity: first.quantity, description: first.description });
  return rest.length > 0 ? `${head} ${t('deliveries.moreItems', { more: rest.length })}` : head;
};

/**
 * A delivery's status as the list and the detail show it: the status (what it waits for), late, a command sent
 * and not yet confirmed by the robot, and why it is Blocked.
 */
export const DeliveryStatusLine = ({ delivery }: { delivery: Delivery }) => {
  const { t } = useTranslation();
  return (
    <>
      <span data-testid="delivery-status">{deliveryStatusLabel(t, delivery)}</span>
      {delivery.late ? (
        <Badge bg="danger" className="ms-2" data-testid="delivery-late">
          {t('deliveries.late')}
        </Badge>
      ) : null}
      {delivery.pending_command ? (
        <div className="small text-body-secondary" data-testid="delivery-pending">
          {t(`deliveries.pending.${delivery.pending_command}`)}
        </div>
      ) : null}
      {delivery.status === DeliveryStatus.blocked && delivery.reason ? (
        <div className="small text-danger text-break" data-testid="delivery-blocked-reason">
          {t('deliveries.blockedReason', { reason: detailText(t, delivery.reason) })}
        </div>
      ) : null}
    </>
  );
};
