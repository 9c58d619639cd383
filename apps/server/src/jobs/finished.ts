import { CommandRefusal } from '@uvd/contracts';
import { conflict } from '../lib/http-error.ts';

/**
 * A Completed job is what its log says happened (or, stopped before it began, that nothing did): changing its
 * name, rooms, start or notes, deleting it, or commanding it again would make the two disagree. Every route
 * that changes a job calls this with the job locked.
 */
export function refuseIfFinished(job: { id: string; name: string; status: string }): void {
  if (job.status !== 'Completed') return;
  throw conflict(`Job "${job.name}" has ended and can no longer be changed.`, CommandRefusal.jobFinished, { job_id: job.id });
}
