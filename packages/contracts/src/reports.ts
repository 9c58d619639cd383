/**
 * Contracts of the reports: proof of disinfection per job and per period, as PDF and CSV, in the caller's
 * language and timezone (their settings). A teleoperator's reports hold only what they may see (their groups'
 * robots), as the logs list; a group scope must be one of their groups.
 */
import { z } from 'zod';
import { Id } from './common.ts';
import { defineRoute } from './route.ts';

/** Longest period one report covers. */
export const REPORT_PERIOD_MAX_DAYS = 366;

export const ReportScope = z.enum(['organization', 'building', 'floor', 'group']);
export type ReportScope = z.infer<typeof ReportScope>;

export const REPORT_MESSAGES = {
  scopeId: 'scope_id is required for a building, floor or group scope',
  order: 'from_date must not be after to_date',
  tooLong: `A report covers at most ${REPORT_PERIOD_MAX_DAYS} days`,
} as const;

const Day = z.iso.date();

/** A period: whole days `from_date` to `to_date` inclusive, in the caller's timezone. */
export const PeriodReportQuery = z
  .object({
    from_date: Day,
    to_date: Day,
    scope: ReportScope.default('organization'),
    scope_id: Id.optional(),
  })
  .refine((q) => q.scope === 'organization' || q.scope_id !== undefined, { message: REPORT_MESSAGES.scopeId, path: ['scope_id'] })
  .refine((q) => q.from_date <= q.to_date, { message: REPORT_MESSAGES.order, path: ['from_date'] })
  .refine((q) => (Date.parse(q.to_date) - Date.parse(q.from_date)) / 86_400_000 < REPORT_PERIOD_MAX_DAYS, {
    message: REPORT_MESSAGES.tooLong,
    path: ['to_date'],
  });
export type PeriodReportQuery = z.input<typeof PeriodReportQuery>;

/** Compliance of a set of rooms: planned vs fully dosed (every cell of its floor at the planned dose or the robot said done). */
export const Compliance = z.object({
  rooms_planned: z.number().int().min(0),
  rooms_fully_dosed: z.number().int().min(0),
  /** fully dosed / planned, 0–1; null when nothing was planned. */
  rate: z.number().min(0).max(1).nullable(),
});
export type Compliance = z.infer<typeof Compliance>;

/** The figures of a period report, for the Reports screen (the PDF and CSV hold these and every room). */
export const PeriodSummary = z.object({
  from_date: Day,
  to_date: Day,
  scope: ReportScope,
  scope_id: Id.nullable(),
  scope_name: z.string(),
  jobs: z.number().int().min(0),
  total: Compliance,
  by_building: z.array(Compliance.extend({ building_id: Id, building_name: z.string() })),
  /** ISO weeks of the period, oldest first: the trend. */
  by_week: z.array(Compliance.extend({ week: z.string().regex(/^\d{4}-W\d{2}$/) })),
});
export type PeriodSummary = z.infer<typeof PeriodSummary>;

const jobParams = z.object({ id: Id });

export const getJobReportPdf = defineRoute({
  method: 'GET',
  path: '/reports/job/:id/pdf',
  summary: "A job's disinfection report as PDF (its log: every room's planned and delivered dose, the dose map)",
  tags: ['reports'],
  params: jobParams,
  produces: 'application/pdf',
  response: { 200: z.string().describe('PDF') },
});

export const getJobReportCsv = defineRoute({
  method: 'GET',
  path: '/reports/job/:id/csv',
  summary: "A job's disinfection report as CSV, one row per room",
  tags: ['reports'],
  params: jobParams,
  produces: 'text/csv',
  response: { 200: z.string().describe('CSV') },
});

export const getPeriodReport = defineRoute({
  method: 'GET',
  path: '/reports/period',
  summary: 'Compliance figures of a period and scope (rooms planned vs fully dosed, per building and per week)',
  tags: ['reports'],
  querystring: PeriodReportQuery,
  response: { 200: PeriodSummary },
});

export const getPeriodReportPdf = defineRoute({
  method: 'GET',
  path: '/reports/period/pdf',
  summary: 'A period report as PDF: compliance figures, trend, and every room of the period',
  tags: ['reports'],
  querystring: PeriodReportQuery,
  produces: 'application/pdf',
  response: { 200: z.string().describe('PDF') },
});

export const getPeriodReportCsv = defineRoute({
  method: 'GET',
  path: '/reports/period/csv',
  summary: 'A period report as CSV, one row per room of every job of the period',
  tags: ['reports'],
  querystring: PeriodReportQuery,
  produces: 'text/csv',
  response: { 200: z.string().describe('CSV') },
});
