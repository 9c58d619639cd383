import { Fragment, useEffect, useMemo, useRef, useState } from 'react';
import { Alert, Button, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { ListedJobStatus } from '@uvd/contracts';
import { ListFilterButtons, ListFilterDialog } from '../../../components/list-filter-dialog.tsx';
import { LIST_COLUMNS, LIST_TABLE_CLASS, ListNameCell, ListPlaceholderRows, ListTableHead, ListWideCells } from '../../../components/list-table.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { paths } from '../../../config/paths.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime, TIME_FORMAT } from '../../../lib/format-date.ts';
import { useRobotStream } from '../../../lib/live/use-robot-stream.ts';
import { robotListKey } from '../../../lib/robot-list.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { readJobFilters, useFilterRobots, useFocusedJob, useJobList } from '../api/jobs-query.ts';
import { JobDetails } from '../components/job-details.tsx';
import { JobProgressLine } from '../../../components/job-progress.tsx';
import { pageInfo } from '../../../lib/list-filters.ts';
import { listReturnState, useListAddress } from '../../../lib/use-list-address.ts';
import { readJobFocus } from '../job-focus.ts';
import { useJobStreams } from '../live/use-job-streams.ts';


/** Behaviour §2 /jobs: the filtered, paginated, live jobs list with expandable rows. */
export const JobsRoute = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const location = useLocation();
  const address = useListAddress();
  const { search } = address;
  const filters = useMemo(() => readJobFilters(search, timezone), [search, timezone]);
  const jobs = useJobList(filters);
  const focusId = readJobFocus(location.state);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(focusId ? [focusId] : []));
  const robots = useFilterRobots(address.filterOpen);
  const pageJobs = jobs.data?.payload;
  // A linked job that is not on this page is shown first, above the page's jobs, until it is performed.
  const focusMissing = focusId !== null && pageJobs !== undefined && !pageJobs.some((job) => job.job_id === focusId);
  const focused = useFocusedJob(focusId, focusMissing);
  const pinned = focusMissing && focused.data && !focused.data.performed ? focused.data : undefined;
  // A linked job that ended is history (Logs); one the server does not give (unknown, another organization's) is not found.
  const finished = focusMissing && focused.data?.performed ? focused.data : undefined;
  const notFound = focusMissing && focused.isError && isApiRequestError(focused.error) && focused.error.status === 404;
  const list = useMemo(() => (pageJobs && pinned ? [pinned, ...pageJobs] : pageJobs), [pageJobs, pinned]);
  useJobStreams();
  // The robots of the jobs shown: a command to one of them that never arrives is reported (and their list kept live).
  const robotIds = useMemo(() => list?.map((job) => job.robot_id) ?? [], [list]);
  useRobotStream(robotListKey, robotIds);

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
        <Link className="btn btn-primary" to={paths.jobCreate.getHref()} state={listReturnState(location.search)}>
          {t('jobTable.newJob')}
        </Link>
        <ListFilterButtons idPrefix="job" {...address.buttons} />
      </div>
      {notFound ? <Alert variant="warning">{t('jobTable.jobNotFound')}</Alert> : null}
      {focusMissing && focused.isError && !notFound ? <Alert variant="danger">{t('jobTable.jobError')}</Alert> : null}
      {finished ? (
        <Alert variant="info">
          {t('jobTable.jobFinished', {
            name: finished.name,
            status: t(finished.completion_status ? `completionStatus.${finished.completion_status}` : 'jobStatus.Completed'),
          })}{' '}
          <Link to={paths.logs.getHref({ startDate: finished.start_time.slice(0, 10) })}>{t('jobTable.openLogs')}</Link>
        </Alert>
      ) : null}
      {jobs.isError ? (
        <div className="alert alert-danger" role="alert">
          {t('jobTable.error')}
        </div>
      ) : (
        <Table responsive hover className={LIST_TABLE_CLASS} aria-busy={jobs.isPending}>
          <ListTableHead
            labels={{
              expand: t('jobTable.expand'),
              name: t('jobTable.name'),
              status: t('jobTable.status'),
              robot: t('jobTable.robot'),
              startTime: t('jobTable.startTime'),
            }}
          />
          <tbody>
            {list === undefined ? <ListPlaceholderRows /> : null}
            {list?.length === 0 ? (
              <tr>
                <td colSpan={LIST_COLUMNS} className="text-center text-body-secondary">
                  {t('jobTable.noJobs')}
                </td>
              </tr>
            ) : null}
            {list?.map((job) => {
              const open = expanded.has(job.job_id);
              const detailsId = `job-details-${job.job_id}`;
              const startTime = formatDateTime(job.start_time, timezone);
              return (
                <Fragment key={job.job_id}>
                  <tr data-testid="job-row" ref={job.job_id === focusId ? focusRow : undefined}>
                    <td>
                      <Button
                        size="sm"
                        variant="link"
                        className="row-toggle"
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
                    <ListNameCell name={job.name} robot={job.robot_name} time={startTime} />
                    <td>
                      <span data-testid="job-status">
                        {job.status === 'Running' && job.connection_lost_since
                          ? // The robot is unreachable: what its lamp does is unknown, so no live state is shown.
                            t('jobStatus.connectionLost', { time: formatDateTime(job.connection_lost_since, timezone, TIME_FORMAT) })
                          : t(`jobStatus.${job.status === 'Running' && job.active_state ? job.active_state : job.status}`)}
                      </span>
                      {job.status === 'Scheduled' && job.not_started_reason ? (
                        <div className="small text-danger" data-testid="job-not-started">
                          {t('jobStatus.notStarted', { reason: t(`notStartedReason.${job.not_started_reason}`) })}
                        </div>
                      ) : null}
                      <JobProgressLine job={job} />
                    </td>
                    <ListWideCells robot={job.robot_name} time={startTime} />
                  </tr>
                  {open ? (
                    <tr id={detailsId}>
                      <td colSpan={LIST_COLUMNS}>
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
      <PaginationBar
        count={jobs.data?.count}
        offset={filters.offset}
        limit={filters.limit}
        label={t('filter.page', { page, pages })}
        sizeId="job-page-size"
        {...address.paging(filters.offset)}
      />
      <ListFilterDialog
        {...address.dialog}
        filters={filters}
        robots={robots.data?.payload}
        robotsError={robots.isError}
        statuses={{
          offered: ListedJobStatus.options.map((status) => ({ value: status, label: t(`jobStatus.${status}`) })),
          chosen: filters.statuses,
        }}
        idPrefix="job"
      />
    </>
  );
};
