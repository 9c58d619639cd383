/**
 * `GET /jobs/v2/jobs/stream` (spec §7): job_change events of the listed jobs, or, with an empty job_list, of
 * every job the caller may see (the console's jobs page shows a filtered, paged list and wants to learn of
 * new jobs too). Restricted roles see every job of their organization; a teleoperator the jobs of the robots
 * of their groups.
 */
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { streamJobs } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Executor } from '../db/client.ts';
import { jobs } from '../db/schema.ts';
import type { LiveEvent } from './bus.ts';
import { registerStream } from './sse.ts';
import type { Viewer } from './viewer.ts';

/** A job_change payload names its robot (a Job, or a deleted job's last state). */
const JobRobot = z.object({ robot_id: z.string() });

async function robotOfJob(db: Executor, orgId: string, jobId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ robotId: jobs.robotId })
    .from(jobs)
    .where(and(eq(jobs.orgId, orgId), eq(jobs.id, jobId)));
  return row?.robotId;
}

export function registerJobStream(app: FastifyInstance, context: AppContext): void {
  const mayReceive = async (event: LiveEvent, viewer: Viewer): Promise<boolean> => {
    if (viewer.seesEverything) return true;
    // The payload normally carries the robot; the table is the fallback for payloads that do not.
    const robotId =
      JobRobot.safeParse(event.payload).data?.robot_id ??
      (await robotOfJob(context.db, viewer.principal.orgId, event.key));
    if (robotId === undefined) return false;
    return viewer.canSeeRobot(robotId);
  };
  registerStream(app, context, streamJobs, {
    stream: 'jobs',
    keysFromQuery: (query) => query.job_list,
    authorize: mayReceive,
  });
}
