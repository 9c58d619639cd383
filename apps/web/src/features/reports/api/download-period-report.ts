import { useMutation } from '@tanstack/react-query';
import { getPeriodReportCsv, getPeriodReportPdf } from '@uvd/contracts';
import type { PeriodReportQuery } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { fileNamePart, saveFile } from '../../../lib/save-file.ts';

export type ReportFormat = 'pdf' | 'csv';

/** The file's name: scope and period, so a folder of reports sorts and reads by what they cover. */
export const periodReportFileName = (scopeName: string, query: PeriodReportQuery, format: ReportFormat): string =>
  `disinfection-report-${fileNamePart(scopeName)}-${query.from_date}-${query.to_date}.${format}`;

/** GET /reports/period/pdf or /csv: the period's report in the user's language and timezone. */
export const downloadPeriodReport = (api: ApiClient, query: PeriodReportQuery, format: ReportFormat): Promise<Blob> =>
  api.requestFile(format === 'pdf' ? getPeriodReportPdf : getPeriodReportCsv, { query });

export const useDownloadPeriodReport = () => {
  const api = useApi();
  return useMutation({
    mutationFn: async ({ query, format, filename }: { query: PeriodReportQuery; format: ReportFormat; filename: string }) => {
      saveFile(await downloadPeriodReport(api, query, format), filename);
    },
  });
};
