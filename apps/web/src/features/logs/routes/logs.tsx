import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ListFilterButtons, ListFilterDialog } from '../../../components/list-filter-dialog.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { useFilterRobots, useLogs } from '../api/logs-query.ts';
import { LogTable } from '../components/log-table.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import {
  activeFilterCount,
  applyFilterChange,
  applyLimit,
  applyOffset,
  clearFilters,
  readFilters,
  resetFilters,
} from '../../../lib/list-filters.ts';

/** Behaviour §2 /logs: the logs list with URL-synced filters and expandable rows. */
export const LogsRoute = () => {
  const { t } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const { timezone } = useSessionUser();
  const filters = readFilters(search, new Date(), timezone);
  const logs = useLogs(filters);
  const [filterOpen, setFilterOpen] = useState(false);
  const [expandedId, setExpandedId] = useState<string | null>(null);
  const robots = useFilterRobots(filterOpen);

  return (
    <>
      <PageTitle title={t('nav.logs')}>
        <div className="d-flex flex-wrap align-items-center gap-2">
          <ListFilterButtons
            active={activeFilterCount(search)}
            idPrefix="log"
            onOpen={() => {
              setFilterOpen(true);
            }}
            onClear={() => {
              setSearch(clearFilters(search));
            }}
          />
        </div>
      </PageTitle>
      {logs.isError ? (
        <div className="alert alert-danger" role="alert">
          {t('logTable.error')}
        </div>
      ) : (
        <>
          <LogTable
            logs={logs.data?.payload}
            loading={logs.isPending}
            expandedId={expandedId}
            onToggle={(id) => {
              setExpandedId((current) => (current === id ? null : id));
            }}
          />
          <PaginationBar
            count={logs.data?.count}
            offset={filters.offset}
            limit={filters.limit}
            label={t('logTable.pagination')}
            sizeId="log-page-size"
            onOffset={(offset) => {
              setSearch(applyOffset(search, offset));
            }}
            onLimit={(limit) => {
              setSearch(applyLimit(search, limit));
            }}
          />
        </>
      )}
      {filterOpen ? (
        <ListFilterDialog
          show
          filters={filters}
          robots={robots.data?.payload}
          robotsError={robots.isError}
          idPrefix="log"
          onApply={(change) => {
            setSearch(applyFilterChange(search, change));
            setFilterOpen(false);
          }}
          onReset={() => {
            setSearch(resetFilters());
            setFilterOpen(false);
          }}
          onClose={() => {
            setFilterOpen(false);
          }}
        />
      ) : null}
    </>
  );
};
