/**
 * The PDF reports, drawn with pdfkit. Runs in the PDF worker (pdf-worker.ts), never on the server's event loop.
 * Pages are written out as they fill (no page buffering), so a period of any size costs one page of memory plus
 * the embedded font. DejaVu Sans is embedded (subset): the standard PDF fonts lack letters of names such as
 * Northern Sami's č đ ŋ š ŧ ž.
 */
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { mjPerCm2, type DoseGrid, type LoggedJobEvent, type MapPoint, type PeriodSummary } from '@uvd/contracts';
import { causeText, formatter, promptText, startedByText, type Formatter, type Language } from './messages.ts';
import type { JobReportData } from './repository.ts';
import type { ReportRoom } from './rows.ts';

const require = createRequire(import.meta.url);
export const FONT_REGULAR = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf');
export const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf');

interface Common {
  language: Language;
  timeZone: string;
  /** ISO instant. */
  generatedAt: string;
  generatedBy: string;
}

export type PdfStart = (Common & { kind: 'job'; data: JobReportData }) | (Common & { kind: 'period'; summary: PeriodSummary });

export interface ReportDocument {
  /** The next rooms of a period report's room list. */
  addRooms(rooms: readonly ReportRoom[]): void;
  /** Finishes the document (the font is embedded now). */
  end(): void;
}

const LOCALE_TAGS: Record<Language, string> = { en: 'en-GB', fi: 'fi-FI', se: 'sv-SE' };

const MARGIN = 36;
const BODY = 8;
const SMALL = 7;
const GREY = '#555555';
const LINE = '#bbbbbb';

export function newDocument(start: PdfStart, title: string): PDFKit.PDFDocument {
  return new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: MARGIN,
    lang: LOCALE_TAGS[start.language],
    displayTitle: true,
    info: { Title: title, Author: start.generatedBy, Creator: 'UVD console' },
  });
}

interface Column {
  title: string;
  /** Share of the content width. */
  width: number;
  align?: 'left' | 'right';
}

/** A cursor down the pages: headings, key-value blocks and tables that break across pages with their header. */
class Writer {
  y: number;
  private pageNo = 1;

  constructor(
    readonly doc: PDFKit.PDFDocument,
    readonly format: Formatter,
    private readonly footer: string,
  ) {
    doc.registerFont('Sans', FONT_REGULAR);
    doc.registerFont('Sans-Bold', FONT_BOLD);
    doc.font('Sans').fontSize(BODY);
    this.y = MARGIN;
    this.drawFooter();
  }

  get width(): number {
    return this.doc.page.width - 2 * MARGIN;
  }

  get bottom(): number {
    return this.doc.page.height - MARGIN - 14;
  }

  newPage(): void {
    this.doc.addPage();
    this.pageNo += 1;
    this.y = MARGIN;
    this.drawFooter();
  }

  /** Room for `height` more points on this page, else a new page. */
  ensure(height: number): void {
    if (this.y + height > this.bottom) this.newPage();
  }

  private drawFooter(): void {
    const { doc } = this;
    // Text below the bottom margin would make pdfkit add a page: the margin is lifted while the footer is drawn.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Sans')
      .fontSize(SMALL)
      .fillColor(GREY)
      .text(`${this.footer} · ${this.format.texts.page} ${this.pageNo}`, MARGIN, doc.page.height - MARGIN + 4, { width: this.width, lineBreak: false });
    doc.page.margins.bottom = margin;
    doc.fillColor('black').fontSize(BODY);
  }

  title(text: string, subtitle: string): void {
    this.doc.font('Sans-Bold').fontSize(16).fillColor('black').text(text, MARGIN, this.y, { width: this.width });
    this.y = this.doc.y + 2;
    this.doc.font('Sans').fontSize(11).text(subtitle, MARGIN, this.y, { width: this.width });
    this.y = this.doc.y + 8;
  }

  heading(text: string): void {
    this.ensure(40);
    this.doc.font('Sans-Bold').fontSize(11).fillColor('black').text(text, MARGIN, this.y, { width: this.width });
    this.y = this.doc.y + 4;
    this.doc.font('Sans').fontSize(BODY);
  }

  paragraph(text: string, size = BODY, color = 'black'): void {
    this.doc.font('Sans').fontSize(size);
    const height = this.doc.heightOfString(text, { width: this.width });
    this.ensure(height + 4);
    this.doc.fillColor(color).text(text, MARGIN, this.y, { width: this.width });
    this.doc.fillColor('black');
    this.y += height + 4;
  }

  /** Label: value pairs in two columns. */
  facts(pairs: readonly [string, string][]): void {
    const half = this.width / 2;
    const labelWidth = 110;
    for (let index = 0; index < pairs.length; index += 2) {
      const row = pairs.slice(index, index + 2);
      const height = Math.max(
        ...row.map(([, value]) => this.doc.font('Sans').fontSize(BODY + 1).heightOfString(value || '–', { width: half - labelWidth - 8 })),
      );
      this.ensure(height + 3);
      row.forEach(([label, value], column) => {
        const x = MARGIN + column * half;
        this.doc.font('Sans-Bold').fontSize(BODY + 1).text(label, x, this.y, { width: labelWidth, lineBreak: false });
        this.doc.font('Sans').text(value || '–', x + labelWidth, this.y, { width: half - labelWidth - 8 });
      });
      this.y += height + 3;
    }
    this.y += 6;
  }

  private header(columns: readonly Column[]): void {
    const { doc } = this;
    doc.font('Sans-Bold').fontSize(SMALL);
    const heights = columns.map((column) => doc.heightOfString(column.title, { width: column.width * this.width - 4 }));
    const height = Math.max(...heights) + 4;
    doc.rect(MARGIN, this.y, this.width, height).fill('#eeeeee');
    doc.fillColor('black');
    let x = MARGIN;
    for (const column of columns) {
      doc.text(column.title, x + 2, this.y + 2, { width: column.width * this.width - 4, align: column.align ?? 'left' });
      x += column.width * this.width;
    }
    this.y += height;
    doc.font('Sans').fontSize(SMALL);
  }

  /**
   * A table. `lines`: each row gets at most this many lines (cut with an ellipsis, no measuring: the long room
   * list of a period); without it each row is as tall as its tallest cell.
   */
  table(columns: readonly Column[], rows: Iterable<readonly string[]>, options: { lines?: number; withHeader?: boolean } = {}): void {
    const { doc } = this;
    const lineHeight = SMALL * 1.25;
    if (options.withHeader !== false) {
      this.ensure(30);
      this.header(columns);
    }
    doc.font('Sans').fontSize(SMALL);
    for (const row of rows) {
      const height = options.lines
        ? options.lines * lineHeight + 3
        : Math.max(...row.map((cell, index) => doc.heightOfString(cell, { width: (columns[index]?.width ?? 0) * this.width - 4 }))) + 3;
      if (this.y + height > this.bottom) {
        this.newPage();
        this.header(columns);
      }
      let x = MARGIN;
      row.forEach((cell, index) => {
        const column = columns[index];
        if (!column) return;
        const width = column.width * this.width - 4;
        doc.text(cell, x + 2, this.y + 1.5, { width, align: column.align ?? 'left', ...(options.lines ? { height: height - 2, ellipsis: true } : {}) });
        x += column.width * this.width;
      });
      this.y += height;
      doc.moveTo(MARGIN, this.y).lineTo(MARGIN + this.width, this.y).lineWidth(0.3).strokeColor(LINE).stroke();
    }
    this.y += 6;
  }
}

// ---------------------------------------------------------------- colour scale

/** Viridis at five stops: perceptually even, readable in grey print and by most colour-blind readers. */
const SCALE: readonly [number, number, number][] = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
const BINS = 16;

/** The colour of a share 0–1 of the scale's top, in one of BINS steps (runs of equal cells merge into one rectangle). */
function colour(share: number): string {
  const bin = Math.min(BINS - 1, Math.max(0, Math.floor(share * BINS)));
  const t = (bin + 0.5) / BINS;
  const position = t * (SCALE.length - 1);
  const low = Math.floor(position);
  const high = Math.min(SCALE.length - 1, low + 1);
  const mix = position - low;
  const from = SCALE[low] ?? [0, 0, 0];
  const to = SCALE[high] ?? [0, 0, 0];
  const channel = (index: 0 | 1 | 2) => Math.round(from[index] + (to[index] - from[index]) * mix);
  return `#${[channel(0), channel(1), channel(2)].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

const binOf = (share: number) => Math.min(BINS - 1, Math.max(0, Math.floor(share * BINS)));

// ---------------------------------------------------------------- job report

function interruptionRows(format: Formatter, events: readonly LoggedJobEvent[]): string[][] {
  return events.map((event) => [
    format.dateTime(event.at),
    event.room_name ?? '–',
    format.texts.events[event.kind],
    event.actor ?? format.texts.robotActor,
    causeText(format.texts, event.cause),
    format.dose(event.dose),
  ]);
}

const completionText = (format: Formatter, status: string): string =>
  status in format.texts.completion ? format.texts.completion[status as keyof Formatter['texts']['completion']] : status;

function lampTimes(format: Formatter, room: ReportRoom): string {
  if (!room.lamp_from) return '–';
  return `${format.time(room.lamp_from)}–${format.time(room.lamp_to)}`;
}

function jobReport(writer: Writer, start: Common, data: JobReportData): void {
  const { format } = writer;
  const { texts } = format;
  const { job } = data;
  writer.title(texts.jobTitle, job.job_name);
  writer.facts([
    [texts.robot, job.robot_name],
    [texts.plannedBy, job.created_by],
    [texts.startedBy, startedByText(format, job.started)],
    [texts.plannedStart, format.dateTime(job.planned_starttime)],
    [texts.started, format.dateTime(job.starttime)],
    [texts.ended, format.dateTime(job.endtime)],
    [texts.status, completionText(format, job.completion_status) + (job.reason && job.reason in texts.reasons ? ` (${texts.reasons[job.reason as keyof typeof texts.reasons]})` : '')],
    [texts.timezone, format.timeZone],
    [texts.generated, `${format.dateTime(start.generatedAt)} ${texts.generatedBy} ${start.generatedBy}`],
  ]);
  writer.paragraph(texts.units, SMALL, GREY);
  const r = texts.room;
  writer.table(
    [
      { title: r.order, width: 0.03 },
      { title: r.name, width: 0.13 },
      { title: r.place, width: 0.11 },
      { title: r.state, width: 0.1 },
      { title: r.planned, width: 0.075, align: 'right' },
      { title: r.min, width: 0.075, align: 'right' },
      { title: r.p10, width: 0.075, align: 'right' },
      { title: r.mean, width: 0.075, align: 'right' },
      { title: r.coverage, width: 0.06, align: 'right' },
      { title: r.reported, width: 0.075, align: 'right' },
      { title: r.fullyDosed, width: 0.05 },
      { title: r.times, width: 0.07 },
      { title: r.prompts, width: 0.1 },
    ],
    data.rooms.map((room) => [
      String(room.order + 1),
      room.room_name,
      room.building_name ? `${room.building_name} / ${room.floor_name ?? ''}` : texts.compliance.noBuilding,
      texts.states[room.state],
      format.dose(room.planned),
      format.dose(room.stats?.min),
      format.dose(room.stats?.p10),
      format.dose(room.stats?.mean),
      format.percent(room.stats?.coverage),
      format.dose(room.dose_received),
      room.fully_dosed ? texts.yes : texts.no,
      lampTimes(format, room),
      room.prompts.map((prompt) => promptText(format, prompt)).join('\n'),
    ]),
  );
  writer.heading(texts.interruptions.title);
  if (data.events.length === 0) writer.paragraph(texts.interruptions.none);
  else {
    const i = texts.interruptions;
    writer.table(
      [
        { title: i.at, width: 0.14 },
        { title: i.room, width: 0.18 },
        { title: i.event, width: 0.2 },
        { title: i.who, width: 0.14 },
        { title: i.cause, width: 0.2 },
        { title: i.dose, width: 0.14, align: 'right' },
      ],
      interruptionRows(format, data.events),
    );
  }
  writer.heading(texts.prompts.title);
  if (data.prompts.length === 0) writer.paragraph(texts.prompts.none);
  else {
    const p = texts.prompts;
    writer.table(
      [
        { title: p.asked, width: 0.14 },
        { title: p.room, width: 0.16 },
        { title: p.question, width: 0.22 },
        { title: p.answered, width: 0.14 },
        { title: p.by, width: 0.14 },
        { title: p.answer, width: 0.1 },
        { title: p.via, width: 0.1 },
      ],
      data.prompts.map((prompt) => [
        format.dateTime(prompt.asked_at),
        prompt.room_name ?? '–',
        texts.buttons[prompt.button],
        prompt.answered_at ? format.dateTime(prompt.answered_at) : p.unanswered,
        prompt.answered_by ?? '–',
        prompt.answered_at === null ? '–' : prompt.confirm === false ? p.skip : p.confirm,
        prompt.source ? texts.sources[prompt.source] : '–',
      ]),
    );
  }
  if (data.notes.trim()) writer.paragraph(data.notes);
  doseMaps(writer, data);
}

interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

function extend(bounds: Bounds | undefined, point: MapPoint): Bounds {
  if (!bounds) return { minX: point.x, minY: point.y, maxX: point.x, maxY: point.y };
  return { minX: Math.min(bounds.minX, point.x), minY: Math.min(bounds.minY, point.y), maxX: Math.max(bounds.maxX, point.x), maxY: Math.max(bounds.maxY, point.y) };
}

/** Each floor of the job on a page of its own: its rooms, the dose field of the job's rooms on a colour scale, the robot's path. */
function doseMaps(writer: Writer, data: JobReportData): void {
  const { doc, format } = writer;
  const { texts } = format;
  const grids = data.dose?.grids ?? {};
  for (const floor of data.floors) {
    const floorRooms = data.rooms.filter((room) => room.floor_id === floor.floorId);
    const floorGrids = floorRooms.flatMap((room) => {
      const grid = grids[String(room.order)];
      return grid ? [{ room, grid }] : [];
    });
    const path = data.trajectory.filter((point) => point.floor_id === floor.floorId);
    let bounds: Bounds | undefined;
    for (const room of floor.rooms) for (const point of room.polygon) bounds = extend(bounds, point);
    for (const { grid } of floorGrids) {
      bounds = extend(bounds, grid.origin);
      bounds = extend(bounds, { x: grid.origin.x + grid.columns * grid.cell_m, y: grid.origin.y + grid.rows * grid.cell_m });
    }
    for (const point of path) bounds = extend(bounds, point);
    if (!bounds) continue;

    writer.newPage();
    writer.heading(`${texts.doseMap.title}: ${floor.buildingName} / ${floor.floorName}`);
    if (floorGrids.length === 0) writer.paragraph(data.dose ? texts.doseMap.noGrid : texts.doseMap.none, SMALL, GREY);
    const legendWidth = 150;
    const boxWidth = writer.width - legendWidth - 12;
    const boxHeight = writer.bottom - writer.y - 8;
    const spanX = Math.max(bounds.maxX - bounds.minX, 0.5);
    const spanY = Math.max(bounds.maxY - bounds.minY, 0.5);
    const scale = Math.min(boxWidth / spanX, boxHeight / spanY);
    const left = MARGIN;
    const top = writer.y;
    const drawnHeight = spanY * scale;
    const at = (point: MapPoint): [number, number] => [left + (point.x - bounds.minX) * scale, top + drawnHeight - (point.y - bounds.minY) * scale];

    const top_ = Math.max(1, ...floorRooms.map((room) => room.planned));
    for (const { grid } of floorGrids) drawGrid(doc, grid, top_, at, scale);

    const jobRoomIds = new Set(floorRooms.map((room) => room.room_id));
    for (const room of floor.rooms) {
      const [first, ...rest] = room.polygon;
      if (!first) continue;
      doc.moveTo(...at(first));
      for (const point of rest) doc.lineTo(...at(point));
      doc.closePath().lineWidth(jobRoomIds.has(room.roomId) ? 1 : 0.5).strokeColor(jobRoomIds.has(room.roomId) ? 'black' : '#999999').stroke();
    }
    doc.font('Sans').fontSize(SMALL).fillColor('black');
    for (const room of floorRooms) {
      const polygon = floor.rooms.find((candidate) => candidate.roomId === room.room_id)?.polygon ?? [];
      if (polygon.length === 0) continue;
      const centre = { x: polygon.reduce((sum, point) => sum + point.x, 0) / polygon.length, y: polygon.reduce((sum, point) => sum + point.y, 0) / polygon.length };
      const [x, y] = at(centre);
      const label = `${room.order + 1}. ${room.room_name}`;
      const width = doc.widthOfString(label) + 4;
      doc.rect(x - width / 2, y - 5, width, 10).fillOpacity(0.8).fill('white').fillOpacity(1);
      doc.fillColor('black').text(label, x - width / 2 + 2, y - 4, { lineBreak: false });
    }

    const [firstPoint, ...restPoints] = path;
    if (firstPoint) {
      doc.moveTo(...at(firstPoint));
      for (const point of restPoints) doc.lineTo(...at(point));
      doc.lineWidth(1.2).strokeColor('#e4007c').stroke();
      doc.circle(...at(firstPoint), 2.5).fill('#e4007c');
    }

    legend(writer, left + boxWidth + 12, top, top_, floorRooms.map((room) => room.planned));
    writer.y = top + drawnHeight + 8;
  }
}

function drawGrid(doc: PDFKit.PDFDocument, grid: DoseGrid, scaleTop: number, at: (point: MapPoint) => [number, number], scale: number): void {
  const cell = grid.cell_m * scale;
  for (let row = 0; row < grid.rows; row++) {
    let runStart = -1;
    let runBin = -1;
    const flush = (end: number) => {
      if (runStart < 0) return;
      const [x, y] = at({ x: grid.origin.x + runStart * grid.cell_m, y: grid.origin.y + (row + 1) * grid.cell_m });
      doc.rect(x, y, (end - runStart) * cell + 0.2, cell + 0.2).fill(colour((runBin + 0.5) / BINS));
      runStart = -1;
    };
    for (let column = 0; column < grid.columns; column++) {
      const value = grid.values[row * grid.columns + column];
      if (value === null || value === undefined) {
        flush(column);
        continue;
      }
      const bin = binOf(value / scaleTop);
      if (bin !== runBin || runStart < 0) {
        flush(column);
        runStart = column;
        runBin = bin;
      }
    }
    flush(grid.columns);
  }
}

function legend(writer: Writer, x: number, y: number, top: number, planned: readonly number[]): void {
  const { doc, format } = writer;
  const { texts } = format;
  doc.font('Sans-Bold').fontSize(SMALL).fillColor('black').text(texts.doseMap.legend, x, y, { width: 150 });
  const barTop = doc.y + 4;
  const barHeight = 160;
  const step = barHeight / BINS;
  for (let bin = 0; bin < BINS; bin++) doc.rect(x, barTop + barHeight - (bin + 1) * step, 14, step + 0.2).fill(colour((bin + 0.5) / BINS));
  doc.rect(x, barTop, 14, barHeight).lineWidth(0.5).strokeColor('black').stroke();
  doc.font('Sans').fontSize(SMALL).fillColor('black');
  for (const share of [0, 0.25, 0.5, 0.75, 1]) {
    const value = share * top;
    const tickY = barTop + barHeight - share * barHeight;
    doc.moveTo(x + 14, tickY).lineTo(x + 18, tickY).lineWidth(0.5).stroke();
    doc.text(`${format.number(value)} (${format.number(mjPerCm2(value))})${share === 1 ? ' ≥' : ''}`, x + 20, tickY - 3.5, { lineBreak: false });
  }
  for (const dose of new Set(planned)) {
    const tickY = barTop + barHeight - (dose / top) * barHeight;
    doc.moveTo(x - 4, tickY).lineTo(x, tickY).lineWidth(1).strokeColor('black').stroke();
    doc.text(`${texts.doseMap.plannedMark} ${format.number(dose)}`, x + 80, tickY - 3.5, { lineBreak: false });
  }
  const pathY = barTop + barHeight + 14;
  doc.moveTo(x, pathY).lineTo(x + 14, pathY).lineWidth(1.2).strokeColor('#e4007c').stroke();
  doc.fillColor('black').text(texts.doseMap.trajectory, x + 20, pathY - 3.5, { lineBreak: false });
}

// ---------------------------------------------------------------- period report

function periodHeader(writer: Writer, start: Common, summary: PeriodSummary): void {
  const { format } = writer;
  const { texts } = format;
  const c = texts.compliance;
  writer.title(texts.periodTitle, `${texts.scopes[summary.scope]}: ${summary.scope_name}`);
  writer.facts([
    [texts.period, `${format.day(summary.from_date)} – ${format.day(summary.to_date)}`],
    [texts.timezone, format.timeZone],
    [texts.scope, `${texts.scopes[summary.scope]}: ${summary.scope_name}`],
    [texts.generated, `${format.dateTime(start.generatedAt)} ${texts.generatedBy} ${start.generatedBy}`],
  ]);
  writer.heading(c.title);
  writer.facts([
    [c.jobs, format.number(summary.jobs)],
    [c.planned, format.number(summary.total.rooms_planned)],
    [c.fullyDosed, format.number(summary.total.rooms_fully_dosed)],
    [c.rate, format.percent(summary.total.rate)],
  ]);
  writer.paragraph(c.definition, SMALL, GREY);
  writer.heading(c.byBuilding);
  writer.table(
    [
      { title: c.building, width: 0.4 },
      { title: c.planned, width: 0.2, align: 'right' },
      { title: c.fullyDosed, width: 0.2, align: 'right' },
      { title: c.rate, width: 0.2, align: 'right' },
    ],
    summary.by_building.map((row) => [row.building_name, format.number(row.rooms_planned), format.number(row.rooms_fully_dosed), format.percent(row.rate)]),
  );
  writer.heading(c.trend);
  trendChart(writer, summary);
  writer.heading(c.byWeek);
  writer.table(
    [
      { title: c.week, width: 0.4 },
      { title: c.planned, width: 0.2, align: 'right' },
      { title: c.fullyDosed, width: 0.2, align: 'right' },
      { title: c.rate, width: 0.2, align: 'right' },
    ],
    summary.by_week.map((row) => [row.week, format.number(row.rooms_planned), format.number(row.rooms_fully_dosed), format.percent(row.rate)]),
  );
  writer.newPage();
  writer.heading(c.everyRoom);
  if (summary.total.rooms_planned === 0) writer.paragraph(c.nothing);
  else writer.paragraph(texts.units, SMALL, GREY);
}

function trendChart(writer: Writer, summary: PeriodSummary): void {
  const { doc, format } = writer;
  const height = 110;
  writer.ensure(height + 30);
  const left = MARGIN + 30;
  const width = writer.width - 40;
  const top = writer.y;
  doc.font('Sans').fontSize(SMALL).fillColor('black');
  for (const share of [0, 0.5, 1]) {
    const y = top + height - share * height;
    doc.moveTo(left, y).lineTo(left + width, y).lineWidth(0.3).strokeColor(LINE).stroke();
    doc.text(format.percent(share), MARGIN, y - 3.5, { width: 28, align: 'right', lineBreak: false });
  }
  const weeks = summary.by_week;
  const slot = width / Math.max(1, weeks.length);
  const labelEvery = Math.max(1, Math.ceil(weeks.length / Math.floor(width / 34)));
  weeks.forEach((week, index) => {
    const x = left + index * slot;
    if (week.rate !== null) doc.rect(x + slot * 0.15, top + height - week.rate * height, slot * 0.7, week.rate * height).fill(colour(week.rate));
    if (index % labelEvery === 0) doc.fillColor('black').text(week.week.slice(5), x, top + height + 2, { width: Math.max(slot, 30), lineBreak: false });
  });
  writer.y = top + height + 16;
}

function periodRoomRows(format: Formatter, rooms: readonly ReportRoom[]): string[][] {
  const { texts } = format;
  return rooms.map((room) => [
    format.dateTime(room.job.starttime),
    room.job.job_name,
    room.room_name,
    room.building_name ? `${room.building_name} / ${room.floor_name ?? ''}` : texts.compliance.noBuilding,
    texts.states[room.state],
    format.dose(room.planned),
    room.stats ? `${format.dose(room.stats.min)} / ${format.dose(room.stats.p10)} / ${format.dose(room.stats.mean)}` : '–',
    format.percent(room.stats?.coverage),
    format.dose(room.dose_received),
    room.fully_dosed ? texts.yes : texts.no,
    [...room.events, ...room.job_events].map((event) => `${format.time(event.at)} ${texts.events[event.kind]}${event.actor ? ` ${event.actor}` : ''}`).join(', '),
  ]);
}

function periodColumns(format: Formatter): Column[] {
  const r = format.texts.room;
  return [
    { title: r.start, width: 0.09 },
    { title: r.job, width: 0.1 },
    { title: r.name, width: 0.1 },
    { title: r.place, width: 0.1 },
    { title: r.state, width: 0.09 },
    { title: r.planned, width: 0.07, align: 'right' },
    { title: `${r.min} / ${r.p10} / ${r.mean}`, width: 0.16, align: 'right' },
    { title: r.coverage, width: 0.05, align: 'right' },
    { title: r.reported, width: 0.07, align: 'right' },
    { title: r.fullyDosed, width: 0.04 },
    { title: r.interruptions, width: 0.13 },
  ];
}

// ----------------------------------------------------------------

/** Starts a report on `doc`: a job report is whole at once, a period report takes its rooms page by page. */
export function startReport(doc: PDFKit.PDFDocument, start: PdfStart): ReportDocument {
  const format = formatter(start.language, start.timeZone);
  const title = start.kind === 'job' ? `${format.texts.jobTitle}: ${start.data.job.job_name}` : `${format.texts.periodTitle}: ${start.summary.scope_name}`;
  const writer = new Writer(doc, format, title);
  if (start.kind === 'job') jobReport(writer, start, start.data);
  else periodHeader(writer, start, start.summary);
  let first = true;
  return {
    addRooms(rooms) {
      if (rooms.length === 0) return;
      writer.table(periodColumns(format), periodRoomRows(format, rooms), { lines: 2, withHeader: first });
      // Tables of later pages of rows continue the one table: no gap, no second header.
      writer.y -= 6;
      first = false;
    },
    end() {
      doc.end();
    },
  };
}

export const documentTitle = (start: PdfStart): string => {
  const texts = formatter(start.language, start.timeZone).texts;
  return start.kind === 'job' ? `${texts.jobTitle}: ${start.data.job.job_name}` : `${texts.periodTitle}: ${start.summary.scope_name}`;
};
