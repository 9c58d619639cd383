import { Navigate, useParams } from 'react-router';
import { paths } from '../../../config/paths.ts';
import { NO_JOB } from '../job-focus.ts';
import type { JobFocusState } from '../job-focus.ts';

/** `/job/:jobId?` → the jobs list, asking it to expand that job; `no_job` or no id opens the plain list. */
export const JobRedirectRoute = () => {
  const { jobId } = useParams();
  if (!jobId || jobId === NO_JOB) return <Navigate to={paths.jobs.getHref()} replace />;
  const state: JobFocusState = { expandedJobId: jobId };
  return <Navigate to={paths.jobs.getHref()} replace state={state} />;
};
