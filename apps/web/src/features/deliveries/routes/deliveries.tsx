import { useMemo } from 'react';
import { Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Delivery } from '@uvd/contracts';
import { ListFilterButtons, ListFilterDialog } from '../../../components/list-filter-dialog.tsx';
import { LIST_PLACEHOLDER_ROWS } from '../../../components/list-table.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { SkeletonRows } from '../../../components/skeleton.tsx';
import { paths } from '../../../config/paths.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { pageInfo } from '../../../lib/list-filters.ts';
import { useListAddress } from '../../../lib/use-list-address.ts';
import { useRobotList } from '../../../lib/robot-list.ts';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/use-media-query.ts';
import { DELIVERY_STATUSES, readDeliveryFilters, useDeliveryList } from '../api/deliveries-query.ts';
import { DeliveryStatusLine, itemsSummary } from '../components/delivery-status.tsx';
import { useDeliveryStream } from '../live/use-delivery-stream.ts';

/** Desktop columns: what, route, priority, status, robot, requested. */
const WIDE_COLUMNS = 6;
/** Phone columns: the route (with robot and time on a second line) and the status. */
const PHONE_COLUMNS = 2;

/** /deliveries: the filtered, paginated, live deliveries list (open ones first, then the finished ones). */
export const DeliveriesRoute = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const address = useListAddress();
  const { search } = address;
  const filters = useMemo(() => readDeliveryFilters(search, timezone), [search, timezone]);
  const deliveries = useDeliveryList(filters);
  const robots = useRobotList(address.filterOpen);
  const phone = useMediaQuery(PHONE_QUERY);
  useDeliveryStream();
  const list = deliveries.data?.payload;
  const columns = phone ? PHONE_COLUMNS : WIDE_COLUMNS;
  const { page, pages } = pageInfo(deliveries.data?.count ?? 0, filters);

  return (
    <>
      <PageTitle title={t('nav.deliveries')} />
      <div className="d-flex flex-wrap gap-2 mb-3">
        <Link className="btn btn-primary" to={paths.deliveryCreate.getHref()}>
          {t('deliveries.new')}
        </Link>
        <ListFilterButtons idPrefix="delivery" {...address.buttons} />
      </div>
      {deliveries.isError ? (
        <div className="alert alert-danger" role="alert">
          {t('deliveries.loadError')}
        </div>
      ) : (
        <Table hover className="delivery-table" aria-busy={deliveries.isPending} aria-label={t('nav.deliveries')}>
          <thead>
            <tr>
              {phone ? null : <th scope="col">{t('deliveries.what')}</th>}
              <th scope="col">{t('deliveries.route')}</th>
              {phone ? null : <th scope="col">{t('deliveries.priority')}</th>}
              <th scope="col">{t('deliveries.status')}</th>
              {phone ? null : <th scope="col">{t('deliveries.robot')}</th>}
              {phone ? null : <th scope="col">{t('deliveries.requested')}</th>}
            </tr>
          </thead>
          <tbody>
            {list === undefined ? <SkeletonRows rows={LIST_PLACEHOLDER_ROWS} columns={columns} /> : null}
            {list?.length === 0 ? (
              <tr>
                <td colSpan={columns} className="text-center text-body-secondary">
                  {t('deliveries.none')}
                </td>
              </tr>
            ) : null}
            {list?.map((delivery) => <DeliveryRow key={delivery.delivery_id} delivery={delivery} phone={phone} timezone={timezone} />)}
          </tbody>
        </Table>
      )}
      <PaginationBar
        count={deliveries.data?.count}
        offset={filters.offset}
        limit={filters.limit}
        label={t('filter.page', { page, pages })}
        sizeId="delivery-page-size"
        {...address.paging(filters.offset)}
      />
      <ListFilterDialog
        {...address.dialog}
        filters={filters}
        robots={robots.data?.payload.filter((robot) => robot.kind === 'delivery')}
        robotsError={robots.isError}
        statuses={{
          offered: DELIVERY_STATUSES.map((status) => ({ value: String(status), label: t(`deliveryStatus.${status}`) })),
          chosen: filters.statuses.map(String),
        }}
        idPrefix="delivery"
      />
    </>
  );
};

const DeliveryRow = ({ delivery, phone, timezone }: { delivery: Delivery; phone: boolean; timezone: string }) => {
  const { t } = useTranslation();
  const route = t('deliveries.fromTo', { from: delivery.pickup.name, to: delivery.dropoff.name });
  const robot = delivery.robot_name ?? t('deliveries.noRobot');
  const requested = formatDateTime(delivery.created_at, timezone);
  const link = (
    <Link to={paths.delivery.getHref(delivery.delivery_id)} className="text-break">
      {route}
    </Link>
  );
  if (phone) {
    return (
      <tr data-testid="delivery-row">
        <td className="text-break">
          {link}
          <div className="small text-body-secondary text-break" data-testid="delivery-row-second-line">
            {robot} · <time dateTime={delivery.created_at}>{requested}</time>
          </div>
        </td>
        <td className="text-break">
          <DeliveryStatusLine delivery={delivery} />
        </td>
      </tr>
    );
  }
  return (
    <tr data-testid="delivery-row">
      <td className="text-break">{itemsSummary(t, delivery.items)}</td>
      <td>{link}</td>
      <td>{t(`deliveries.priorities.${delivery.priority}`)}</td>
      <td>
        <DeliveryStatusLine delivery={delivery} />
      </td>
      <td className="text-break">{robot}</td>
      <td>
        <time dateTime={delivery.created_at}>{requested}</time>
      </td>
    </tr>
  );
};
