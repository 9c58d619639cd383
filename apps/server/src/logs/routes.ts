import type { FastifyPluginAsync } from 'fastify';
import { ErrorCode, getLog, getLogDose, getLogStatus, listLogs, updateLogNotes } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { logDose } from '../dose/repository.ts';
import { HttpError, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import * as repository from './repository.ts';

/** The logs backend (behaviour §7), plus the notes edit the logs list offers. */
export const logsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, listLogs, async ({ query, principal }) => {
    const { count, rows } = await repository.listLogs(ctx.db, principal, query);
    return { count, payload: rows.map(repository.toLogEntry) };
  });

  registerRoute(app, getLog, async ({ params, query, principal }) => {
    const row = await repository.findLog(ctx.db, principal, params.id);
    if (!row) throw notFound('Log');
    const entry = repository.toLogEntry(row);
    if (!query.extra_navigation_data || !row.hasTrajectory) return entry;
    const trajectory = await repository.logTrajectory(ctx.db, row.jobId);
    return trajectory ? { ...entry, trajectory } : entry;
  });

  registerRoute(app, getLogDose, async ({ params, principal }) => {
    const row = await repository.findLog(ctx.db, principal, params.id);
    if (!row) throw notFound('Log');
    const dose = await logDose(ctx.db, row.jobId);
    if (!dose) {
      throw new HttpError(
        404,
        ErrorCode.notFound,
        'This log has no dose map: its job recorded no path, or no lamp-on times, or it was logged before the dose model.',
      );
    }
    return dose;
  });

  registerRoute(app, getLogStatus, async ({ params, principal }) => {
    const row = await repository.findLog(ctx.db, principal, params.id);
    if (!row) throw notFound('Log');
    return { data: { status: row.completionStatus } };
  });

  registerRoute(app, updateLogNotes, async ({ params, body, principal }) =>
    ctx.db.transaction(async (tx) => {
      const existing = await repository.findLog(tx, principal, params.id, true);
      if (!existing) throw notFound('Log');
      await repository.setLogNotes(tx, existing.jobId, body.notes);
      return repository.toLogEntry({ ...existing, notes: body.notes });
    }),
  );
};
