import type { Compliance, PeriodSummary } from '@uvd/contracts';
import { Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';

/** A day of the API (yyyy-MM-dd) as behaviour §9 shows dates (dd.MM.yyyy). */
export const formatDay = (iso: string): string => iso.split('-').reverse().join('.');

/** A compliance rate as a whole percentage; "–" when nothing was planned. */
const useRate = () => {
  const { t } = useTranslation();
  return (compliance: Compliance) => (compliance.rate === null ? '–' : t('dose.percent', { value: Math.round(compliance.rate * 100) }));
};

/** A bar as long as the rate, for the eye; the rate itself is the cell's text. */
const RateBar = ({ rate }: { rate: number | null }) => (
  <div className="report-bar bg-body-secondary rounded" aria-hidden="true">
    <div className="report-bar-fill bg-primary rounded" style={{ width: `${String(Math.round((rate ?? 0) * 100))}%` }} />
  </div>
);

/** The period's figures: compliance in all, per building and per ISO week (the trend), each a captioned table. */
export const PeriodSummaryView = ({ summary }: { summary: PeriodSummary }) => {
  const { t } = useTranslation();
  const rate = useRate();
  const columns = (
    <>
      <th scope="col" className="text-end">
        {t('reports.planned')}
      </th>
      <th scope="col" className="text-end">
        {t('reports.fullyDosed')}
      </th>
      <th scope="col">{t('reports.rate')}</th>
    </>
  );
  const cells = (compliance: Compliance) => (
    <>
      <td className="text-end">{compliance.rooms_planned}</td>
      <td className="text-end">{compliance.rooms_fully_dosed}</td>
      <td>
        <div className="d-flex align-items-center gap-2">
          <span className="report-rate text-nowrap">{rate(compliance)}</span>
          <RateBar rate={compliance.rate} />
        </div>
      </td>
    </>
  );
  return (
    <section aria-labelledby="report-summary-heading" data-testid="period-summary">
      <h2 className="h5" id="report-summary-heading">
        {t('reports.summaryOf', { scope: summary.scope_name, from: formatDay(summary.from_date), to: formatDay(summary.to_date) })}
      </h2>
      <dl className="row mb-3" data-testid="report-total">
        <dt className="col-7 col-sm-4">{t('reports.jobs')}</dt>
        <dd className="col-5 col-sm-8">{summary.jobs}</dd>
        <dt className="col-7 col-sm-4">{t('reports.planned')}</dt>
        <dd className="col-5 col-sm-8">{summary.total.rooms_planned}</dd>
        <dt className="col-7 col-sm-4">{t('reports.fullyDosed')}</dt>
        <dd className="col-5 col-sm-8">{summary.total.rooms_fully_dosed}</dd>
        <dt className="col-7 col-sm-4">{t('reports.rate')}</dt>
        <dd className="col-5 col-sm-8 fw-bold">{rate(summary.total)}</dd>
      </dl>
      <div className="row g-3">
        <div className="col-12 col-lg-6">
          <Table size="sm" className="align-middle" data-testid="report-buildings">
            <caption className="caption-top">{t('reports.byBuilding')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('map.building')}</th>
                {columns}
              </tr>
            </thead>
            <tbody>
              {summary.by_building.length === 0 ? (
                <tr>
                  <td colSpan={4} className="text-body-secondary">
                    {t('reports.noRooms')}
                  </td>
                </tr>
              ) : (
                summary.by_building.map((building) => (
                  <tr key={building.building_id}>
                    <th scope="row" className="fw-normal">
                      {building.building_name}
                    </th>
                    {cells(building)}
                  </tr>
                ))
              )}
            </tbody>
          </Table>
        </div>
        <div className="col-12 col-lg-6">
          <Table size="sm" className="align-middle" data-testid="report-weeks">
            <caption className="caption-top">{t('reports.byWeek')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('reports.week')}</th>
                {columns}
              </tr>
            </thead>
            <tbody>
              {summary.by_week.length === 0 ? (
                <tr>
                  <td colSpan={4} className="text-body-secondary">
                    {t('reports.noRooms')}
                  </td>
                </tr>
              ) : (
                summary.by_week.map((week) => (
                  <tr key={week.week}>
                    <th scope="row" className="fw-normal text-nowrap">
                      {t('reports.weekOf', { week: week.week })}
                    </th>
                    {cells(week)}
                  </tr>
                ))
              )}
            </tbody>
          </Table>
        </div>
      </div>
    </section>
  );
};
