import { useTranslation } from 'react-i18next';
import type { CustodyStep, DeliveryDetail } from '@uvd/contracts';
import { formatDateTime } from '../../../lib/format-date.ts';
import { detailText } from './delivery-status.tsx';

/** Where a step happened, as staff say it: the pickup or drop-off room by name, else on the way. */
const placeOf = (step: CustodyStep, delivery: DeliveryDetail): string | null => {
  const roomId = step.place?.room_id;
  if (!step.place) return null;
  if (roomId === delivery.pickup.room_id) return delivery.pickup.name;
  if (roomId === delivery.dropoff.room_id) return delivery.dropoff.name;
  return null;
};

/**
 * The chain of custody, oldest first: the step, when (the user's timezone), who (a person, else the robot),
 * where, and the step's detail (from the console or the robot, a block's reason).
 */
export const CustodyTimeline = ({ delivery, timezone }: { delivery: DeliveryDetail; timezone: string }) => {
  const { t } = useTranslation();
  return (
    <section className="mb-4" aria-labelledby="delivery-custody-heading">
      <h2 className="h5" id="delivery-custody-heading">
        {t('deliveries.custody')}
      </h2>
      {delivery.custody.length === 0 ? (
        <p className="text-body-secondary">{t('deliveries.noCustody')}</p>
      ) : (
        <ol className="custody-timeline list-unstyled mb-0" aria-label={t('deliveries.custody')}>
          {delivery.custody.map((step, index) => {
            const who = step.user_name ?? step.robot_name;
            const where = placeOf(step, delivery) ?? (step.place ? t('deliveries.onTheWay') : null);
            return (
              <li key={`${step.step}-${step.recorded_at}-${String(index)}`} className="border-start border-3 ps-3 pb-3" data-testid="custody-step">
                <div className="fw-semibold">{t(`deliveries.steps.${step.step}`)}</div>
                <div className="small text-body-secondary">
                  <time dateTime={step.at}>{formatDateTime(step.at, timezone)}</time>
                  {who ? ` · ${t('deliveries.by', { who })}` : null}
                  {where ? ` · ${where}` : null}
                </div>
                {step.detail ? <StepDetail detail={step.detail} /> : null}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
};

const StepDetail = ({ detail }: { detail: string }) => {
  const { t } = useTranslation();
  return <div className="small text-break">{detailText(t, detail)}</div>;
};
