import type { LogEntry } from '@uvd/contracts';
import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../../components/spinner.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { jobReportFileName, useDownloadJobReport } from '../api/download-job-report.ts';
import type { ReportFormat } from '../api/download-job-report.ts';

/** The job's report as PDF and CSV (issue #24), in the user's language and timezone, saved under the job's name. */
export const ReportDownloads = ({ entry, timezone }: { entry: LogEntry; timezone: string }) => {
  const { t } = useTranslation();
  const download = useDownloadJobReport();
  const [format, setFormat] = useState<ReportFormat | null>(null);
  const startDay = formatDateTime(entry.starttime, timezone, 'yyyy-MM-dd');
  const start = (next: ReportFormat) => {
    setFormat(next);
    download.mutate({ id: entry.job_id, format: next, filename: jobReportFileName(entry.job_name, startDay, next) });
  };
  const busy = download.isPending;
  return (
    <div className="mb-3">
      <div className="d-flex flex-wrap gap-2" role="group" aria-label={t('dose.reportDownloads')}>
        {(['pdf', 'csv'] as const).map((each) => (
          <Button
            key={each}
            variant="outline-primary"
            size="sm"
            disabled={busy}
            onClick={() => {
              start(each);
            }}
          >
            {busy && format === each ? <Spinner size="sm" /> : null} {t(each === 'pdf' ? 'dose.downloadPdf' : 'dose.downloadCsv')}
          </Button>
        ))}
      </div>
      <div role="status" className={download.isError ? 'text-danger small mt-1' : 'visually-hidden'}>
        {download.isError ? t('dose.downloadFailed') : busy ? t('dose.downloading') : ''}
      </div>
    </div>
  );
};
