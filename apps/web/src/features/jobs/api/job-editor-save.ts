import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createJob, updateJob } from '@uvd/contracts';
import type { Job, JobInput } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { editorJobKey } from './job-editor-queries.ts';
import { jobListsKey } from './jobs-query.ts';

export interface SaveJobRequest {
  /** Set when editing: PUT /jobs/jobs/{jobId} (the job keeps its robot; the input carries none). */
  jobId: string | null;
  robotId: string;
  input: JobInput;
}

/**
 * Saves the job. With start_now the server starts it in the same call, with the start's checks: the reply is the
 * Running job, or a 409 naming why the robot cannot start it (offline, not Autonomous, busy) with nothing saved,
 * so the editor never leaves a job behind that would start by itself after saying it could not start.
 */
export const useSaveJob = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ jobId, robotId, input }: SaveJobRequest): Promise<Job> =>
      jobId === null
        ? api.request(createJob, { params: { robotId }, query: { start_now: input.start_now === true ? 'true' : 'false' }, body: input })
        : api.request(updateJob, { params: { jobId }, body: input }),
    onSuccess: async (job) => {
      queryClient.removeQueries({ queryKey: editorJobKey(job.job_id) });
      await queryClient.invalidateQueries({ queryKey: jobListsKey });
    },
  });
};
