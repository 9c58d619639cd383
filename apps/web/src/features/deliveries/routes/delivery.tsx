import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import type { DeliveryDetail } from '@uvd/contracts';
import { PageTitle } from '../../../components/page-title.tsx';
import { Skeleton } from '../../../components/skeleton.tsx';
import { paths } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime, TIME_FORMAT } from '../../../lib/format-date.ts';
import { useDelivery } from '../api/deliveries-query.ts';
import { CustodyTimeline } from '../components/custody-timeline.tsx';
import { DeliveryActions } from '../components/delivery-actions.tsx';
import { DeliveryRouteMap } from '../components/delivery-route-map.tsx';
import { DeliveryStatusLine, deliveryStatusLabel } from '../components/delivery-status.tsx';
import { useDeliveryStream } from '../live/use-delivery-stream.ts';

/** /deliveries/:id: status and what the robot waits for, items, people, the route, custody and the actions. */
export const DeliveryRoute = () => {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const delivery = useDelivery(id);
  useDeliveryStream();
  const back = (
    <Link to={paths.deliveries.getHref()} className="btn btn-outline-secondary btn-sm">
      {t('deliveries.backToList')}
    </Link>
  );

  if (delivery.isError) {
    const missing = isApiRequestError(delivery.error) && delivery.error.status === 404;
    return (
      <>
        <PageTitle title={t('placeholder.delivery')}>{back}</PageTitle>
        <div className={missing ? 'alert alert-warning' : 'alert alert-danger'} role="alert">
          {t(missing ? 'deliveries.notFound' : 'deliveries.detailError')}
        </div>
      </>
    );
  }
  if (!delivery.data) {
    return (
      <>
        <PageTitle title={t('placeholder.delivery')}>{back}</PageTitle>
        <Skeleton lines={8} />
      </>
    );
  }
  return <DeliveryView delivery={delivery.data} back={back} />;
};

const DeliveryView = ({ delivery, back }: { delivery: DeliveryDetail; back: ReactNode }) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const title = t('deliveries.detailTitle', { from: delivery.pickup.name, to: delivery.dropoff.name });
  return (
    <>
      <PageTitle title={title}>{back}</PageTitle>
      {/* Status changes arrive live: read out as they happen. */}
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="delivery-status-announcement">
        {t('deliveries.statusNow', { status: deliveryStatusLabel(t, delivery) })}
      </div>
      <div className="row g-4">
        <div className="col-lg-5">
          <section className="mb-4" aria-labelledby="delivery-summary-heading">
            <h2 className="h5" id="delivery-summary-heading">
              {t('deliveries.summary')}
            </h2>
            <dl className="row mb-0">
              <dt className="col-5">{t('deliveries.status')}</dt>
              <dd className="col-7 text-break">
                <DeliveryStatusLine delivery={delivery} />
                {delivery.waiting_for && delivery.waiting_since ? (
                  <div className="small text-body-secondary" data-testid="delivery-waiting-since">
                    {t('deliveries.waitingSince', { time: formatDateTime(delivery.waiting_since, timezone, TIME_FORMAT) })}
                  </div>
                ) : null}
              </dd>
              <dt className="col-5">{t('deliveries.priority')}</dt>
              <dd className="col-7">{t(`deliveries.priorities.${delivery.priority}`)}</dd>
              <dt className="col-5">{t('deliveries.robot')}</dt>
              <dd className="col-7 text-break">{delivery.robot_name ?? t('deliveries.noRobot')}</dd>
              <dt className="col-5">{t('deliveries.sender')}</dt>
              <dd className="col-7 text-break">{delivery.requested_by.name}</dd>
              <dt className="col-5">{t('deliveries.recipient')}</dt>
              <dd className="col-7 text-break">{delivery.recipient_name ?? t('deliveries.noRecipient')}</dd>
              <dt className="col-5">{t('deliveries.requested')}</dt>
              <dd className="col-7">
                <time dateTime={delivery.created_at}>{formatDateTime(delivery.created_at, timezone)}</time>
              </dd>
              <dt className="col-5">{t('deliveries.deliverBy')}</dt>
              <dd className="col-7">
                {delivery.deliver_by ? <time dateTime={delivery.deliver_by}>{formatDateTime(delivery.deliver_by, timezone)}</time> : t('deliveries.noDeadline')}
              </dd>
              {delivery.delivered_at ? (
                <>
                  <dt className="col-5">{t('deliveries.deliveredAt')}</dt>
                  <dd className="col-7">
                    <time dateTime={delivery.delivered_at}>{formatDateTime(delivery.delivered_at, timezone)}</time>
                  </dd>
                </>
              ) : null}
              {delivery.drawer ? (
                <>
                  <dt className="col-5">{t('deliveries.drawer')}</dt>
                  <dd className="col-7">{t(`deliveries.drawerState.${delivery.drawer}`)}</dd>
                </>
              ) : null}
            </dl>
            {delivery.late ? (
              <div className="alert alert-warning mt-3 mb-0" role="alert" data-testid="delivery-late-warning">
                {t('deliveries.lateWarning', { time: delivery.deliver_by ? formatDateTime(delivery.deliver_by, timezone) : '' })}
              </div>
            ) : null}
            {delivery.notes ? (
              <p className="mt-3 mb-0 text-break" style={{ whiteSpace: 'pre-wrap' }}>
                <span className="fw-semibold">{t('deliveries.notes')}: </span>
                {delivery.notes}
              </p>
            ) : null}
          </section>
          <DeliveryActions delivery={delivery} />
          <section className="mb-4" aria-labelledby="delivery-items-heading">
            <h2 className="h5" id="delivery-items-heading">
              {t('deliveries.items')}
            </h2>
            <ul className="list-group">
              {delivery.items.map((item, index) => (
                <li key={`${item.description}-${String(index)}`} className="list-group-item d-flex justify-content-between gap-2" data-testid="delivery-item">
                  <span className="text-break">{t('deliveries.itemLine', { quantity: item.quantity, description: item.description })}</span>
                  <span className="text-body-secondary">{t(`deliveries.categories.${item.category}`)}</span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        <div className="col-lg-7">
          <DeliveryRouteMap delivery={delivery} />
          <CustodyTimeline delivery={delivery} timezone={timezone} />
        </div>
      </div>
    </>
  );
};
