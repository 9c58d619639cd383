import { PeriodReportQuery } from '@uvd/contracts';
import type { ReportScope } from '@uvd/contracts';
import { z } from 'zod';
import { isApiRequestError } from '../../../lib/api-error.ts';

/** What the Reports screen's form holds: a period of whole days and a scope (its id '' while none is chosen). */
export interface ReportForm {
  from_date: string;
  to_date: string;
  scope: ReportScope;
  /** The building of a floor scope, to list its floors; the building itself for a building scope. */
  building_id: string;
  scope_id: string;
}

export type ReportField = 'from_date' | 'to_date' | 'scope' | 'scope_id';
export const REPORT_FIELDS: readonly ReportField[] = ['from_date', 'to_date', 'scope', 'scope_id'];
const isReportField = (field: string): field is ReportField => (REPORT_FIELDS as readonly string[]).includes(field);

const pad = (value: number) => String(value).padStart(2, '0');
const day = (year: number, month: number, date: number) => `${String(year)}-${pad(month)}-${pad(date)}`;
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

export type Preset = 'thisMonth' | 'lastMonth';

/** A preset period from today's date (yyyy-MM-dd in the user's timezone): this month so far, or all of last month. */
export const presetPeriod = (preset: Preset, today: string): { from_date: string; to_date: string } => {
  const [year = 1970, month = 1] = today.split('-').map(Number);
  if (preset === 'thisMonth') return { from_date: day(year, month, 1), to_date: today };
  const [lastYear, lastMonth] = month === 1 ? [year - 1, 12] : [year, month - 1];
  return { from_date: day(lastYear, lastMonth, 1), to_date: day(lastYear, lastMonth, daysIn(lastYear, lastMonth)) };
};

export const presetOf = (form: Pick<ReportForm, 'from_date' | 'to_date'>, today: string): Preset | null => {
  for (const preset of ['thisMonth', 'lastMonth'] as const) {
    const period = presetPeriod(preset, today);
    if (period.from_date === form.from_date && period.to_date === form.to_date) return preset;
  }
  return null;
};

/** The query the form asks for, checked by the contract's own schema; or the fields it refuses. */
export const reportQueryOf = (form: ReportForm): { query: PeriodReportQuery; errors: null } | { query: null; errors: Partial<Record<ReportField, true>> } => {
  const candidate: PeriodReportQuery = {
    from_date: form.from_date,
    to_date: form.to_date,
    scope: form.scope,
    ...(form.scope === 'organization' || form.scope_id === '' ? {} : { scope_id: form.scope_id }),
  };
  const parsed = PeriodReportQuery.safeParse(candidate);
  if (parsed.success) return { query: candidate, errors: null };
  const errors: Partial<Record<ReportField, true>> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? '');
    if (isReportField(field)) errors[field] = true;
  }
  return { query: null, errors };
};

const Issues = z.object({ issues: z.array(z.object({ field: z.string() })).min(1) });
const OneField = z.object({ field: z.string() });

/** The form's fields a 400 names (`details.issues[].field` or `details.field`); empty for any other failure. */
export const refusedFields = (error: unknown): ReportField[] => {
  if (!isApiRequestError(error) || error.status !== 400) return [];
  const issues = Issues.safeParse(error.details);
  const fields = issues.success ? issues.data.issues.map((issue) => issue.field) : [OneField.safeParse(error.details).data?.field ?? ''];
  // A field may come with its place in the request (`querystring.from_date`): its name is the last part.
  return fields.map((field) => field.split(/[./]/).pop() ?? '').filter(isReportField);
};
