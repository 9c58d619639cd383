import { Fragment, useEffect, useMemo, useRef, useState } from 'react';
import { Button, Form, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { SkeletonRows } from '../../../components/skeleton.tsx';
import { paths } from '../../../config/paths.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { useJobList } from '../api/jobs-query.ts';
import { JobDetails } from '../components/job-details.tsx';
import { JobFilterDialog } from '../components/job-filter-dialog.tsx';
import { PAGE_SIZES, applyFilterChange, applyLimit, applyOffset, pageInfo, readFilters } from '../filters.ts';
import { readJobFocus } from '../job-focus.ts';
import { useJobStreams } from '../live/use-job-streams.ts';

const COLUMNS = 5;
const PLACEHOLDER_ROWS = 10;

/** Spec §2 /jobs: the filtered, paginated, live jobs list with expandable rows. */
export const JobsRoute = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const location = useLocation();
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => readFilters(search), [search]);
  const jobs = useJobList(filters);
  const focusId = readJobFocus(location.state);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(focusId ? [focusId] : []));
  const [filterOpen, setFilterOpen] = useState(false);
  const list = jobs.data?.payload;
  const ids = useMemo(() => list?.map((job) => job.job_id) ?? [], [list]);
  useJobStreams(ids);

  const focusRow = useRef<HTMLTableRowElement | null>(null);
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !focusId || !list) return;
    const row = focusRow.current;
    if (row) {
      scrolled.current = true;
      // jsdom has no scrollIntoView; browsers do.
      if (typeof row.scrollIntoView === 'function') row.scrollIntoView({ block: 'center' });
    }
  }, [focusId, list]);

  const toggle = (jobId: string) => {
    setExpanded((previous) => {
      const next = new Set(previous);
      if (next.has(jobId)) next.delete(jobId);
      else next.add(jobId);
      return next;
    });
  };

  const { page, pages } = pageInfo(jobs.data?.count ?? 0, filters);

  return (
    <>
      <PageTitle title={t('nav.jobs')} />
      <div className="d-flex flex-wrap gap-2 mb-3">
        <Link className="btn btn-primary" to={paths.jobCreate.getHref()}>
          {t('jobTable.newJob')}
        </Link>
        <Button
          variant="outline-secondary"
          onClick={() => {
            setFilterOpen(true);
          }}
        >
          {t('jobTable.filter')}
        </Button>
      </div>
      {jobs.isError ? (
        <div className="alert alert-danger" role="alert">
          {t('jobTable.error')}
        </div>
      ) : (
        <Table responsive hover aria-busy={jobs.isPending}>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">{t('jobTable.expand')}</span>
              </th>
              <th scope="col">{t('jobTable.name')}</th>
              <th scope="col">{t('jobTable.status')}</th>
              <th scope="col">{t('jobTable.robot')}</th>
              <th scope="col">{t('jobTable.startTime')}</th>
            </tr>
          </thead>
          <tbody>
            {list === undefined ? <SkeletonRows rows={PLACEHOLDER_ROWS} columns={COLUMNS} /> : null}
            {list?.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS} className="text-center text-body-secondary">
                  {t('jobTable.noJobs')}
                </td>
              </tr>
            ) : null}
            {list?.map((job) => {
              const open = expanded.has(job.job_id);
              const detailsId = `job-details-${job.job_id}`;
              return (
                <Fragment key={job.job_id}>
                  <tr data-testid="job-row" ref={job.job_id === focusId ? focusRow : undefined}>
                    <td>
                      <Button
                        size="sm"
                        variant="link"
                        aria-expanded={open}
                        aria-controls={open ? detailsId : undefined}
                        aria-label={`${t(open ? 'jobTable.collapse' : 'jobTable.expand')}: ${job.name}`}
                        onClick={() => {
                          toggle(job.job_id);
                        }}
                      >
                        {open ? '▾' : '▸'}
                      </Button>
                    </td>
                    <td>{job.name}</td>
                    <td>{t(`jobStatus.${job.status === 'Running' && job.active_state ? job.active_state : job.status}`)}</td>
                    <td>{job.robot_name}</td>
                    <td>{formatDateTime(job.start_time, timezone)}</td>
                  </tr>
                  {open ? (
                    <tr id={detailsId}>
                      <td colSpan={COLUMNS}>
                        <JobDetails
                          job={job}
                          onReload={() => {
                            void jobs.refetch();
                          }}
                        />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </Table>
      )}
      <nav className="d-flex flex-wrap align-items-center gap-2" aria-label={t('filter.page', { page, pages })}>
        <Button
          variant="outline-secondary"
          size="sm"
          disabled={page <= 1}
          onClick={() => {
            setSearch(applyOffset(search, Math.max(0, (page - 2) * filters.limit)));
          }}
        >
          {t('filter.previous')}
        </Button>
        <span aria-live="polite">{t('filter.page', { page, pages })}</span>
        <Button
          variant="outline-secondary"
          size="sm"
          disabled={page >= pages}
          onClick={() => {
            setSearch(applyOffset(search, page * filters.limit));
          }}
        >
          {t('filter.next')}
        </Button>
        <Form.Label htmlFor="job-page-size" className="mb-0 ms-auto">
          {t('filter.pageSize')}
        </Form.Label>
        <Form.Select
          id="job-page-size"
          size="sm"
          className="w-auto"
          value={filters.limit}
          onChange={(event) => {
            setSearch(applyLimit(search, Number(event.target.value), filters.offset));
          }}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </Form.Select>
      </nav>
      <JobFilterDialog
        show={filterOpen}
        filters={filters}
        onApply={(change) => {
          if (Object.keys(change).length > 0) setSearch(applyFilterChange(search, change));
          setFilterOpen(false);
        }}
        onReset={() => {
          setSearch(new URLSearchParams());
          setFilterOpen(false);
        }}
        onClose={() => {
          setFilterOpen(false);
        }}
      />
    </>
  );
};
