import { JobCompletionStatus, type LogEntry } from '@uvd/contracts';
import { Fragment } from 'react';
import { Button, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { LIST_COLUMNS, LIST_TABLE_CLASS, ListNameCell, ListPlaceholderRows, ListTableHead, ListWideCells } from '../../../components/list-table.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { LogDetail } from './log-detail.tsx';


export interface LogTableProps {
  logs: LogEntry[] | undefined;
  loading: boolean;
  expandedId: string | null;
  onToggle: (id: string) => void;
}

export const LogTable = ({ logs, loading, expandedId, onToggle }: LogTableProps) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  // Statuses the console knows are translated; any other text of the robot shows as sent.
  const statusLabel = (status: string): string => {
    const known = JobCompletionStatus.safeParse(status.toLowerCase());
    return known.success ? t(`completionStatus.${known.data}`) : status;
  };
  return (
    <div className="table-responsive">
      <Table hover className={`align-middle ${LIST_TABLE_CLASS}`}>
        <ListTableHead
          labels={{
            expand: t('logTable.expand'),
            name: t('logTable.name'),
            status: t('logTable.status'),
            robot: t('logTable.robot'),
            startTime: t('logTable.startTime'),
          }}
        />
        <tbody>
          {loading || !logs ? (
            <ListPlaceholderRows />
          ) : logs.length === 0 ? (
            <tr>
              <td colSpan={LIST_COLUMNS} className="text-center text-body-secondary">
                {t('logTable.noLogs')}
              </td>
            </tr>
          ) : (
            logs.map((log) => {
              const expanded = expandedId === log.job_id;
              const detailId = `log-detail-${log.job_id}`;
              const startTime = formatDateTime(log.starttime, timezone);
              return (
                <Fragment key={log.job_id}>
                  <tr data-testid="log-row">
                    <td>
                      <Button
                        variant="link"
                        className="row-toggle"
                        size="sm"
                        aria-expanded={expanded}
                        aria-controls={expanded ? detailId : undefined}
                        aria-label={`${t(expanded ? 'logTable.collapse' : 'logTable.expand')}: ${log.job_name}`}
                        onClick={() => {
                          onToggle(log.job_id);
                        }}
                      >
                        <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
                      </Button>
                    </td>
                    <ListNameCell name={log.job_name} robot={log.robot_name} time={startTime} />
                    <td>{statusLabel(log.completion_status)}</td>
                    <ListWideCells robot={log.robot_name} time={startTime} />
                  </tr>
                  {expanded ? (
                    <tr>
                      <td colSpan={LIST_COLUMNS} id={detailId}>
                        <LogDetail id={log.job_id} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })
          )}
        </tbody>
      </Table>
    </div>
  );
};
