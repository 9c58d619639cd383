import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createJob, startJobNow, updateJob } from '@uvd/contracts';
import type { Job, JobInput } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { commandParts } from '../../../lib/command.ts';
import { editorJobKey } from './job-editor-queries.ts';
import { jobListsKey } from './jobs-query.ts';

export interface SaveJobRequest {
  /** Set when editing: PUT /jobs/jobs/{jobId} (the job keeps its robot; the input carries none). */
  jobId: string | null;
  robotId: string;
  input: JobInput;
}

export interface SaveJobResult {
  job: Job;
  /** Whether POST /jobs/job/start accepted the job; null when it was only saved (start_now false). */
  started: boolean | null;
}

/**
 * Saves the job and, for "Start now", starts it. The server's start_now flag only records the wish: the
 * scheduler would start the job at its start_time (now + 5 minutes), so the editor starts it at once with
 * POST /jobs/job/start (the same call as the list's start-now). A refused start leaves the job scheduled.
 */
export const useSaveJob = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ jobId, robotId, input }: SaveJobRequest): Promise<SaveJobResult> => {
      const startNow = input.start_now === true;
      const job =
        jobId === null
          ? await api.request(createJob, { params: { robotId }, query: { start_now: startNow ? 'true' : 'false' }, body: input })
          : await api.request(updateJob, { params: { jobId }, body: input });
      if (!startNow) return { job, started: null };
      try {
        const reply = await api.request(startJobNow, { query: { job_id: job.job_id }, ...commandParts() });
        return { job, started: reply.data };
      } catch {
        return { job, started: false };
      }
    },
    onSuccess: async ({ job }) => {
      queryClient.removeQueries({ queryKey: editorJobKey(job.job_id) });
      await queryClient.invalidateQueries({ queryKey: jobListsKey });
    },
  });
};
