import { z } from 'zod';

/**
 * Behaviour §2 `/job/:jobId?` opens the jobs list with that job expanded and scrolled into view. The id travels in
 * router state, not in the query string, because the list's query string holds only its filters (and reset clears
 * all of them).
 */
export const JobFocusState = z.object({ expandedJobId: z.string().min(1) });
export type JobFocusState = z.infer<typeof JobFocusState>;

/** The literal id behaviour §2 says to skip (links built without a job). */
export const NO_JOB = 'no_job';

export const readJobFocus = (state: unknown): string | null => {
  const parsed = JobFocusState.safeParse(state);
  return parsed.success ? parsed.data.expandedJobId : null;
};
