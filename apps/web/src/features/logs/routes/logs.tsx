import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ListFilterDialog } from '../../../components/list-filter-dialog.tsx';
import { PageTitle } from '../../../components/page-title.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { useFilterRobots, useLogs } from '../api/logs-query.ts';
import { LogTable } from '../components/log-table.tsx';
import { applyFilterChange, applyLimit, applyOffset, readFilters, resetFilters } from '../../../lib/list-filters.ts';

/** Spec §2 /logs: the logs list with URL-synced filters and expandable rows. */
export const LogsRoute = () => {
  const { t } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const filters = readFilters(search);
  const logs = useLogs(filters);
  const [filterOpen, setFilterOpen] = useState(false);
  const [expandedId, setExpandedId] = useState<string | null>(null);
  const robots = useFilterRobots(filterOpen);

  return (
    <>
      <PageTitle title={t('nav.logs')}>
        <Button
          variant="outline-primary"
          onClick={() => {
            setFilterOpen(true);
          }}
        >
          {t('filter.title')}
        </Button>
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
          robotPicker="checkboxes"
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
