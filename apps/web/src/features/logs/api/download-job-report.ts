import { useMutation } from '@tanstack/react-query';
import { getJobReportCsv, getJobReportPdf } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { fileNamePart, saveFile } from '../../../lib/save-file.ts';

export type ReportFormat = 'pdf' | 'csv';

/** The file's name: the job's name and its start day, so a folder of reports sorts and reads by job. */
export const jobReportFileName = (jobName: string, startDay: string, format: ReportFormat): string =>
  `disinfection-report-${fileNamePart(jobName)}-${startDay}.${format}`;

/** GET /reports/job/{id}/pdf or /csv: the job's report, in the user's language and timezone (the server's choice). */
export const downloadJobReport = (api: ApiClient, id: string, format: ReportFormat): Promise<Blob> =>
  api.requestFile(format === 'pdf' ? getJobReportPdf : getJobReportCsv, { params: { id } });

export const useDownloadJobReport = () => {
  const api = useApi();
  return useMutation({
    mutationFn: async ({ id, format, filename }: { id: string; format: ReportFormat; filename: string }) => {
      saveFile(await downloadJobReport(api, id, format), filename);
    },
  });
};
