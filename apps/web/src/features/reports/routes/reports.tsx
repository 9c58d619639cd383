import type { PeriodReportQuery, ReportScope } from '@uvd/contracts';
import { useState } from 'react';
import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/page-title.tsx';
import { EditorSelect } from '../../../components/select-field.tsx';
import { Skeleton } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { useBuildings, useFloors } from '../../../lib/site-queries.ts';
import { periodReportFileName, useDownloadPeriodReport } from '../api/download-period-report.ts';
import type { ReportFormat } from '../api/download-period-report.ts';
import { useReportGroups } from '../api/get-groups.ts';
import { usePeriodReport } from '../api/get-period-report.ts';
import { presetOf, presetPeriod, refusedFields, reportQueryOf } from '../components/period.ts';
import type { ReportField, ReportForm } from '../components/period.ts';
import { PeriodSummaryView } from '../components/period-summary.tsx';

const SCOPES: readonly ReportScope[] = ['organization', 'building', 'floor', 'group'];

/** The field's label, for the messages that name a field the server or the form refused. */
const FIELD_LABEL = {
  from_date: 'reports.from',
  to_date: 'reports.to',
  scope: 'reports.scope',
  scope_id: 'reports.scopeItem',
} as const satisfies Record<ReportField, string>;

/**
 * The Reports screen (issue #24): a period and a scope, the compliance figures of that period (rooms planned vs
 * fully dosed, per building, per week), and its report as PDF and CSV. Every signed-in user: the server keeps a
 * teleoperator's reports to their groups' robots, and offers them only their own groups.
 */
export const ReportsRoute = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const today = formatDateTime(new Date().toISOString(), timezone, 'yyyy-MM-dd');
  const [form, setForm] = useState<ReportForm>(() => ({ ...presetPeriod('thisMonth', today), scope: 'organization', building_id: '', scope_id: '' }));
  const checked = reportQueryOf(form);
  const summary = usePeriodReport(checked.query);
  const download = useDownloadPeriodReport();
  const [downloading, setDownloading] = useState<ReportFormat | null>(null);
  const buildings = useBuildings();
  const floors = useFloors(form.building_id === '' ? null : form.building_id, form.scope === 'floor' && form.building_id !== '');
  const groups = useReportGroups(form.scope === 'group');

  const refused = new Set<ReportField>([...refusedFields(summary.error), ...refusedFields(download.error)]);
  // A scope not chosen yet is a step still to take, not an error: only the dates are checked as they are typed.
  const invalid = (field: ReportField) => refused.has(field) || (field !== 'scope_id' && checked.errors?.[field] === true);
  const preset = presetOf(form, today);
  const update = (change: Partial<ReportForm>) => {
    download.reset();
    setForm((current) => ({ ...current, ...change }));
  };

  const start = (query: PeriodReportQuery, format: ReportFormat) => {
    setDownloading(format);
    download.mutate({ query, format, filename: periodReportFileName(summary.data?.scope_name ?? form.scope, query, format) });
  };

  const fieldError = (field: ReportField) => (invalid(field) ? t('reports.invalid', { field: t(FIELD_LABEL[field]) }) : undefined);
  const scopeChoices = SCOPES.map((scope) => ({ value: scope, label: t(`reports.scopes.${scope}`) }));
  const buildingChoices = buildings.data?.map((building) => ({ value: building.building_id, label: building.building_name }));

  return (
    <>
      <PageTitle title={t('reports.title')} />
      <Form
        className="mb-4"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
        }}
        aria-describedby="reports-intro"
      >
        <p id="reports-intro" className="text-body-secondary">
          {t('reports.intro')}
        </p>
        <fieldset className="mb-3">
          <legend className="h6">{t('reports.period')}</legend>
          <div className="d-flex flex-wrap gap-2 mb-2" role="group" aria-label={t('reports.presets')}>
            {(['thisMonth', 'lastMonth'] as const).map((each) => (
              <Button
                key={each}
                variant={preset === each ? 'primary' : 'outline-primary'}
                aria-pressed={preset === each}
                onClick={() => {
                  update(presetPeriod(each, today));
                }}
              >
                {t(`reports.${each}`)}
              </Button>
            ))}
          </div>
          <div className="row g-2">
            {(['from_date', 'to_date'] as const).map((field) => (
              <Form.Group key={field} className="col-6 col-md-3" controlId={`report-${field}`}>
                <Form.Label>{t(FIELD_LABEL[field])}</Form.Label>
                <Form.Control
                  type="date"
                  value={form[field]}
                  isInvalid={invalid(field)}
                  aria-invalid={invalid(field)}
                  aria-describedby={invalid(field) ? `report-${field}-error` : undefined}
                  onChange={(event) => {
                    update({ [field]: event.target.value });
                  }}
                />
                <Form.Control.Feedback type="invalid" id={`report-${field}-error`}>
                  {fieldError(field)}
                </Form.Control.Feedback>
              </Form.Group>
            ))}
          </div>
        </fieldset>
        <fieldset className="mb-3">
          <legend className="h6">{t('reports.scope')}</legend>
          <div className="row g-2">
            <div className="col-12 col-md-4">
              <EditorSelect
                id="report-scope"
                label={t('reports.scope')}
                value={form.scope}
                choices={scopeChoices}
                placeholder={false}
                error={fieldError('scope')}
                disabled={false}
                onChange={(value) => {
                  const scope = SCOPES.find((each) => each === value) ?? 'organization';
                  update({ scope, scope_id: scope === 'building' ? form.building_id : '' });
                }}
              />
            </div>
            {form.scope === 'building' || form.scope === 'floor' ? (
              <div className="col-12 col-md-4">
                <EditorSelect
                  id="report-building"
                  label={t('map.building')}
                  value={form.building_id}
                  choices={buildingChoices}
                  loading={buildings.isPending}
                  failed={buildings.isError}
                  emptyText={t('reports.noChoices')}
                  error={form.scope === 'building' ? fieldError('scope_id') : undefined}
                  disabled={false}
                  onChange={(value) => {
                    update({ building_id: value, scope_id: form.scope === 'building' ? value : '' });
                  }}
                />
              </div>
            ) : null}
            {form.scope === 'floor' ? (
              <div className="col-12 col-md-4">
                <EditorSelect
                  id="report-floor"
                  label={t('map.floor')}
                  value={form.scope_id}
                  choices={form.building_id === '' ? undefined : floors.data?.map((floor) => ({ value: floor.floor_id, label: floor.floor_name }))}
                  loading={floors.isFetching}
                  failed={floors.isError}
                  emptyText={t('reports.noChoices')}
                  error={fieldError('scope_id')}
                  disabled={form.building_id === ''}
                  onChange={(value) => {
                    update({ scope_id: value });
                  }}
                />
              </div>
            ) : null}
            {form.scope === 'group' ? (
              <div className="col-12 col-md-4">
                <EditorSelect
                  id="report-group"
                  label={t('reports.group')}
                  value={form.scope_id}
                  choices={groups.data?.map((group) => ({ value: group.id, label: group.name }))}
                  loading={groups.isPending}
                  failed={groups.isError}
                  emptyText={t('reports.noGroups')}
                  error={fieldError('scope_id')}
                  disabled={false}
                  onChange={(value) => {
                    update({ scope_id: value });
                  }}
                />
              </div>
            ) : null}
          </div>
        </fieldset>
        <div className="d-flex flex-wrap align-items-center gap-2" role="group" aria-label={t('reports.downloads')}>
          {(['pdf', 'csv'] as const).map((format) => (
            <Button
              key={format}
              variant="primary"
              disabled={checked.query === null || download.isPending}
              onClick={() => {
                if (checked.query) start(checked.query, format);
              }}
            >
              {download.isPending && downloading === format ? <Spinner size="sm" /> : null}{' '}
              {t(format === 'pdf' ? 'reports.downloadPdf' : 'reports.downloadCsv')}
            </Button>
          ))}
        </div>
        <div role="status" className={download.isError ? 'text-danger mt-2' : 'visually-hidden'} data-testid="report-download-status">
          {download.isError ? (refusedFields(download.error).length > 0 ? t('reports.refused') : t('reports.downloadFailed')) : download.isPending ? t('dose.downloading') : ''}
        </div>
      </Form>
      {checked.query === null ? (
        <div className="alert alert-info" role="status">
          {t('reports.completeForm')}
        </div>
      ) : summary.isError ? (
        <div className="alert alert-danger" role="alert">
          {refusedFields(summary.error).length > 0
            ? t('reports.refusedFields', { fields: refusedFields(summary.error).map((field) => t(FIELD_LABEL[field])).join(', ') })
            : t('reports.loadFailed')}
        </div>
      ) : summary.data ? (
        <div aria-busy={summary.isFetching} className={summary.isPlaceholderData ? 'opacity-50' : undefined}>
          <PeriodSummaryView summary={summary.data} />
        </div>
      ) : (
        <div aria-busy="true">
          <Skeleton lines={4} />
        </div>
      )}
    </>
  );
};
