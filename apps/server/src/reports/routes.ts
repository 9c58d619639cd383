import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { getJobReportCsv, getJobReportPdf, getPeriodReport, getPeriodReportCsv, getPeriodReportPdf, type PeriodSummary } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Principal } from '../identity/principal.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { csvLines } from './csv.ts';
import { formatter, knownTimeZone, languageOf, type Formatter } from './messages.ts';
import { pdfStream, WorkerSlots } from './pdf-host.ts';
import * as repository from './repository.ts';

const attachment = (reply: FastifyReply, name: string, type: string): void => {
  void reply.header('content-disposition', `attachment; filename="${name}"`).type(type).header('cache-control', 'no-store');
};

const PDF = 'application/pdf';
const CSV = 'text/csv; charset=utf-8; header=present';

/** Reports of disinfection per job and per period (reports/README.md). */
export const reportsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  const slots = new WorkerSlots(ctx.config.reports.pdfWorkers);
  app.addHook('onClose', () => slots.close());

  const callerFormat = async (principal: Principal): Promise<Formatter> => {
    const settings = await repository.settingsOf(ctx.db, principal);
    return formatter(languageOf(settings.language), knownTimeZone(settings.timezone));
  };

  const jobData = async (principal: Principal, id: string, map: boolean) => {
    const data = await repository.jobReport(ctx.db, principal, id, { map });
    if (!data) throw notFound('Log');
    return data;
  };

  registerRoute(app, getJobReportPdf, async ({ params, principal, reply }) => {
    const format = await callerFormat(principal);
    const data = await jobData(principal, params.id, true);
    const stream = await pdfStream(slots, { kind: 'job', language: format.language, timeZone: format.timeZone, generatedAt: new Date().toISOString(), generatedBy: principal.username, data });
    attachment(reply, `disinfection-${params.id}.pdf`, PDF);
    return stream;
  });

  registerRoute(app, getJobReportCsv, async ({ params, principal, reply }) => {
    const format = await callerFormat(principal);
    const data = await jobData(principal, params.id, false);
    attachment(reply, `disinfection-${params.id}.csv`, CSV);
    return Readable.from(csvLines(format, [data.rooms]), { objectMode: false });
  });

  /** The period, its scope and the summary, or the 4xx of a scope not the caller's. */
  const period = async (principal: Principal, query: { from_date: string; to_date: string; scope: PeriodSummary['scope']; scope_id?: string | undefined }) => {
    // The contract's dates allow year 0, which neither PostgreSQL nor an ISO week of the summary knows.
    for (const field of ['from_date', 'to_date'] as const) {
      if (query[field] < '0001-01-01') throw badRequest(`Invalid querystring field "${field}": dates start at 0001-01-01`, { issues: [{ field, message: 'dates start at 0001-01-01' }] });
    }
    const format = await callerFormat(principal);
    const scope = await repository.resolveScope(ctx.db, principal, query.scope, query.scope_id);
    const bounds = repository.periodBounds(query.from_date, query.to_date, format.timeZone);
    const filter = { principal, scope, timeZone: format.timeZone, ...bounds };
    const summary = () => repository.periodSummary(ctx.db, filter, query.from_date, query.to_date);
    return { format, filter, summary };
  };

  registerRoute(app, getPeriodReport, async ({ query, principal }) => (await period(principal, query)).summary());

  registerRoute(app, getPeriodReportPdf, async ({ query, principal, reply }) => {
    const { format, filter, summary: summarize } = await period(principal, query);
    const summary = await summarize();
    const stream = await pdfStream(
      slots,
      { kind: 'period', language: format.language, timeZone: format.timeZone, generatedAt: new Date().toISOString(), generatedBy: principal.username, summary },
      repository.periodRooms(ctx.db, filter),
    );
    attachment(reply, `disinfection-${query.from_date}-${query.to_date}.pdf`, PDF);
    return stream;
  });

  registerRoute(app, getPeriodReportCsv, async ({ query, principal, reply }) => {
    const { format, filter } = await period(principal, query);
    attachment(reply, `disinfection-${query.from_date}-${query.to_date}.csv`, CSV);
    return Readable.from(csvLines(format, repository.periodRooms(ctx.db, filter)), { objectMode: false });
  });
};
