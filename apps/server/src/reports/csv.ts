/**
 * The CSV reports (RFC 4180: CRLF, fields quoted when they hold a comma, quote or line break), UTF-8 with a BOM so
 * that spreadsheets read the letters right. One row per room. The header holds stable English keys, whatever the
 * caller's language, so imports and macros keep working; texts for people (state label, interruptions, prompts)
 * are in the caller's language, times ISO 8601 in their timezone with its offset, numbers with a dot.
 */
import { mjPerCm2 } from '@uvd/contracts';
import { eventText, isoInZone, promptText, startedByText, type Formatter } from './messages.ts';
import type { ReportRoom } from './rows.ts';

export const CSV_BOM = '\uFEFF';

export const CSV_COLUMNS = [
  'job_id',
  'job_name',
  'robot',
  'planned_by',
  'started_by',
  'job_start',
  'job_end',
  'job_result',
  'order',
  'room_id',
  'room',
  'building',
  'floor',
  'state',
  'state_label',
  'planned_dose_j_m2',
  'planned_dose_mj_cm2',
  'dose_min_j_m2',
  'dose_p10_j_m2',
  'dose_mean_j_m2',
  'dose_min_mj_cm2',
  'dose_p10_mj_cm2',
  'dose_mean_mj_cm2',
  'coverage',
  'dose_reported_j_m2',
  'fully_dosed',
  'lamp_on_from',
  'lamp_on_to',
  'interruptions',
  'job_interruptions',
  'prompts',
] as const;

/**
 * A text a spreadsheet would run as a formula (=, +, -, @, a tab or CR first) gets a leading apostrophe
 * (OWASP "CSV injection"): job and room names are typed by users.
 */
const text = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

const field = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

const number = (value: number | null | undefined, digits = 2): string =>
  value === null || value === undefined ? '' : String(Math.round(value * 10 ** digits) / 10 ** digits);

export function csvLine(values: readonly string[]): string {
  return `${values.map(field).join(',')}\r\n`;
}

export const csvHeader = (): string => `${CSV_BOM}${csvLine(CSV_COLUMNS)}`;

export function csvRow(format: Formatter, room: ReportRoom): string {
  const zone = format.timeZone;
  const { stats, job } = room;
  const row: Record<(typeof CSV_COLUMNS)[number], string> = {
    job_id: job.job_id,
    job_name: text(job.job_name),
    robot: text(job.robot_name),
    planned_by: text(job.created_by),
    started_by: text(startedByText(format, job.started)),
    job_start: isoInZone(job.starttime, zone),
    job_end: isoInZone(job.endtime, zone),
    job_result: job.completion_status,
    order: String(room.order),
    room_id: room.room_id,
    room: text(room.room_name),
    building: text(room.building_name ?? ''),
    floor: text(room.floor_name ?? ''),
    state: room.state,
    state_label: format.texts.states[room.state],
    planned_dose_j_m2: number(room.planned),
    planned_dose_mj_cm2: number(mjPerCm2(room.planned), 3),
    dose_min_j_m2: number(stats?.min),
    dose_p10_j_m2: number(stats?.p10),
    dose_mean_j_m2: number(stats?.mean),
    dose_min_mj_cm2: number(stats ? mjPerCm2(stats.min) : null, 3),
    dose_p10_mj_cm2: number(stats ? mjPerCm2(stats.p10) : null, 3),
    dose_mean_mj_cm2: number(stats ? mjPerCm2(stats.mean) : null, 3),
    coverage: number(stats?.coverage, 4),
    dose_reported_j_m2: number(room.dose_received),
    fully_dosed: room.fully_dosed ? 'true' : 'false',
    lamp_on_from: isoInZone(room.lamp_from, zone),
    lamp_on_to: isoInZone(room.lamp_to, zone),
    interruptions: text(room.events.map((event) => eventText(format, event)).join('; ')),
    job_interruptions: text(room.job_events.map((event) => eventText(format, event)).join('; ')),
    prompts: text(room.prompts.map((prompt) => promptText(format, prompt)).join('; ')),
  };
  return csvLine(CSV_COLUMNS.map((column) => row[column]));
}

/** The CSV of pages of rooms, a page at a time: a period of any size streams in constant memory. */
export async function* csvLines(format: Formatter, pages: AsyncIterable<ReportRoom[]> | Iterable<ReportRoom[]>): AsyncGenerator<string> {
  yield csvHeader();
  for await (const page of pages) {
    if (page.length > 0) yield page.map((room) => csvRow(format, room)).join('');
  }
}
