/**
 * The words of the reports, in the caller's language (their settings: EN, FI, SE — `se` is the product's code
 * for Swedish), with dates, times and numbers formatted for it in their timezone.
 */
import type { ActionButtonText, DecisionSource, JobCompletionStatus, JobEventKind, LoggedJobEvent, LoggedPrompt, LoggedRoomState, NotStartedReason, ReportScope } from '@uvd/contracts';
import { DEFAULT_TIMEZONE } from '@uvd/contracts';

export type Language = 'en' | 'fi' | 'se';

/** Stored settings say EN, FI or SE; anything else reads as English. */
export const languageOf = (stored: string): Language => {
  const lower = stored.toLowerCase();
  return lower === 'fi' || lower === 'se' ? lower : 'en';
};

export interface ReportTexts {
  jobTitle: string;
  periodTitle: string;
  job: string;
  robot: string;
  plannedBy: string;
  plannedStart: string;
  started: string;
  startedBy: string;
  /** Who started a job the scheduler started at its planned time. */
  scheduler: string;
  ended: string;
  status: string;
  reason: string;
  timezone: string;
  generated: string;
  generatedBy: string;
  scope: string;
  period: string;
  page: string;
  units: string;
  scopes: Record<ReportScope, string>;
  /** Table headers of a room. */
  room: {
    order: string;
    name: string;
    place: string;
    job: string;
    start: string;
    state: string;
    planned: string;
    min: string;
    p10: string;
    mean: string;
    coverage: string;
    reported: string;
    times: string;
    fullyDosed: string;
    interruptions: string;
    prompts: string;
  };
  states: Record<LoggedRoomState, string>;
  completion: Record<JobCompletionStatus, string>;
  reasons: Record<NotStartedReason, string>;
  events: Record<JobEventKind, string>;
  /** Words for an event's `cause` a client can translate; other causes (a fault's error type) are shown as sent. */
  causes: Record<string, string>;
  buttons: Record<ActionButtonText, string>;
  sources: Record<DecisionSource, string>;
  interruptions: { title: string; none: string; at: string; room: string; event: string; who: string; cause: string; dose: string };
  prompts: { title: string; none: string; asked: string; room: string; question: string; answered: string; by: string; answer: string; via: string; confirm: string; skip: string; unanswered: string };
  doseMap: { title: string; floor: string; legend: string; trajectory: string; plannedMark: string; none: string; noGrid: string };
  compliance: {
    title: string;
    definition: string;
    jobs: string;
    planned: string;
    fullyDosed: string;
    rate: string;
    building: string;
    byBuilding: string;
    week: string;
    byWeek: string;
    trend: string;
    everyRoom: string;
    nothing: string;
    noBuilding: string;
  };
  yes: string;
  no: string;
  robotActor: string;
}

const en: ReportTexts = {
  jobTitle: 'Disinfection report',
  periodTitle: 'Disinfection compliance report',
  job: 'Job',
  robot: 'Robot',
  plannedBy: 'Planned by',
  plannedStart: 'Planned start',
  started: 'Started',
  startedBy: 'Started by',
  scheduler: 'the scheduler, at the planned start',
  ended: 'Ended',
  status: 'Result',
  reason: 'Reason',
  timezone: 'Times in',
  generated: 'Generated',
  generatedBy: 'by',
  scope: 'Scope',
  period: 'Period',
  page: 'Page',
  units: 'Doses in J/m², mJ/cm² in brackets. Min, p10 and mean: the dose model over the room’s floor area; reported: what the robot reported.',
  scopes: { organization: 'Organization', building: 'Building', floor: 'Floor', group: 'Group' },
  room: {
    order: '#',
    name: 'Room',
    place: 'Building / floor',
    job: 'Job',
    start: 'Job start',
    state: 'State',
    planned: 'Planned',
    min: 'Min',
    p10: 'P10',
    mean: 'Mean',
    coverage: 'Coverage',
    reported: 'Reported',
    times: 'Lamp on',
    fullyDosed: 'Fully dosed',
    interruptions: 'Interruptions',
    prompts: 'Prompts',
  },
  states: { done: 'Disinfected', aborted: 'Not disinfected (Aborted)', not_ready: 'Not ready', not_reached: 'Not reached' },
  completion: { completed: 'Completed', aborted: 'Stopped', failed: 'Failed', interrupted: 'Ended while the robot was unreachable', missed: 'Missed' },
  reasons: {
    robot_battery_low: 'Battery low',
    robot_error: 'Robot error',
    robot_offline: 'Robot offline',
    robot_busy: 'Robot busy',
    robot_not_autonomous: 'Robot not in Autonomous mode',
  },
  events: {
    started: 'Started',
    room_not_ready: 'Room set not ready',
    room_ready: 'Room set ready',
    paused: 'Paused',
    resumed: 'Resumed',
    prompt_asked: 'Prompt asked',
    prompt_answered: 'Prompt answered',
    room_skipped: 'Room skipped',
    stopped: 'Stopped',
    fault: 'Fault',
  },
  causes: { operator: 'a person', robot: 'the robot', confirm: 'confirmed', skip: 'skipped', server: 'the server' },
  buttons: {
    skip: 'Skip',
    wait: 'Wait',
    wait_to_enter: 'May I enter?',
    wait_next_room: 'Go to the next room?',
    wait_to_disinfect: 'Start disinfecting?',
    go_home: 'Go home?',
    continue: 'Continue?',
    charge: 'Go charging?',
  },
  sources: { console: 'console', notification: 'notification' },
  interruptions: { title: 'Interruptions', none: 'No interruptions.', at: 'Time', room: 'Room', event: 'Event', who: 'Who', cause: 'Cause', dose: 'Dose then' },
  prompts: {
    title: 'Prompts',
    none: 'No prompts.',
    asked: 'Asked',
    room: 'Room',
    question: 'Question',
    answered: 'Answered',
    by: 'By',
    answer: 'Answer',
    via: 'Via',
    confirm: 'Confirmed',
    skip: 'Skipped',
    unanswered: 'Unanswered',
  },
  doseMap: {
    title: 'Dose map',
    floor: 'Floor',
    legend: 'Dose (J/m², mJ/cm²)',
    trajectory: 'Robot path',
    plannedMark: 'planned',
    none: 'No dose map: the log has no recorded dose field.',
    noGrid: 'no dose field',
  },
  compliance: {
    title: 'Compliance',
    definition: 'A room is fully dosed when the dose model shows its whole floor area at the planned dose, or, without a dose field, when the robot reported it disinfected.',
    jobs: 'Jobs',
    planned: 'Rooms planned',
    fullyDosed: 'Fully dosed',
    rate: 'Rate',
    building: 'Building',
    byBuilding: 'By building',
    week: 'Week',
    byWeek: 'By week',
    trend: 'Trend: share of rooms fully dosed per week',
    everyRoom: 'Every room',
    nothing: 'No rooms in this period.',
    noBuilding: '(room removed)',
  },
  yes: 'yes',
  no: 'no',
  robotActor: 'robot',
};

const fi: ReportTexts = {
  jobTitle: 'Desinfiointiraportti',
  periodTitle: 'Desinfioinnin toteumaraportti',
  job: 'Tehtävä',
  robot: 'Robotti',
  plannedBy: 'Suunnittelija',
  plannedStart: 'Suunniteltu alku',
  started: 'Alkoi',
  startedBy: 'Käynnistäjä',
  scheduler: 'ajastus, suunniteltuna aikana',
  ended: 'Päättyi',
  status: 'Tulos',
  reason: 'Syy',
  timezone: 'Ajat aikavyöhykkeellä',
  generated: 'Luotu',
  generatedBy: 'käyttäjä',
  scope: 'Rajaus',
  period: 'Jakso',
  page: 'Sivu',
  units: 'Annokset yksikössä J/m², suluissa mJ/cm². Pienin, p10 ja keskiarvo: annosmallin tulos huoneen lattiapinta-alalle; ilmoitettu: robotin ilmoittama.',
  scopes: { organization: 'Organisaatio', building: 'Rakennus', floor: 'Kerros', group: 'Ryhmä' },
  room: {
    order: '#',
    name: 'Huone',
    place: 'Rakennus / kerros',
    job: 'Tehtävä',
    start: 'Tehtävän alku',
    state: 'Tila',
    planned: 'Suunniteltu',
    min: 'Pienin',
    p10: 'P10',
    mean: 'Keskiarvo',
    coverage: 'Kattavuus',
    reported: 'Ilmoitettu',
    times: 'Lamppu päällä',
    fullyDosed: 'Täysi annos',
    interruptions: 'Keskeytykset',
    prompts: 'Kysymykset',
  },
  states: { done: 'Desinfioitu', aborted: 'Ei desinfioitu (keskeytetty)', not_ready: 'Ei valmis', not_reached: 'Ei saavutettu' },
  completion: { completed: 'Valmis', aborted: 'Pysäytetty', failed: 'Epäonnistui', interrupted: 'Lopetettu robotin ollessa tavoittamattomissa', missed: 'Jäi aloittamatta' },
  reasons: {
    robot_battery_low: 'Akku vähissä',
    robot_error: 'Robotin virhe',
    robot_offline: 'Robottiin ei yhteyttä',
    robot_busy: 'Robotti varattu',
    robot_not_autonomous: 'Robotti ei autonomisessa tilassa',
  },
  events: {
    started: 'Käynnistetty',
    room_not_ready: 'Huone merkitty ei-valmiiksi',
    room_ready: 'Huone merkitty valmiiksi',
    paused: 'Tauko',
    resumed: 'Jatkettu',
    prompt_asked: 'Kysymys esitetty',
    prompt_answered: 'Kysymykseen vastattu',
    room_skipped: 'Huone ohitettu',
    stopped: 'Pysäytetty',
    fault: 'Vika',
  },
  causes: { operator: 'henkilö', robot: 'robotti', confirm: 'vahvistettu', skip: 'ohitettu', server: 'palvelin' },
  buttons: {
    skip: 'Ohita',
    wait: 'Odota',
    wait_to_enter: 'Saako huoneeseen mennä?',
    wait_next_room: 'Siirrytäänkö seuraavaan huoneeseen?',
    wait_to_disinfect: 'Aloitetaanko desinfiointi?',
    go_home: 'Palataanko kotiin?',
    continue: 'Jatketaanko?',
    charge: 'Mennäänkö lataukseen?',
  },
  sources: { console: 'konsoli', notification: 'ilmoitus' },
  interruptions: { title: 'Keskeytykset', none: 'Ei keskeytyksiä.', at: 'Aika', room: 'Huone', event: 'Tapahtuma', who: 'Kuka', cause: 'Syy', dose: 'Annos silloin' },
  prompts: {
    title: 'Kysymykset',
    none: 'Ei kysymyksiä.',
    asked: 'Kysytty',
    room: 'Huone',
    question: 'Kysymys',
    answered: 'Vastattu',
    by: 'Vastaaja',
    answer: 'Vastaus',
    via: 'Kautta',
    confirm: 'Vahvistettu',
    skip: 'Ohitettu',
    unanswered: 'Vastaamatta',
  },
  doseMap: {
    title: 'Annoskartta',
    floor: 'Kerros',
    legend: 'Annos (J/m², mJ/cm²)',
    trajectory: 'Robotin reitti',
    plannedMark: 'suunniteltu',
    none: 'Ei annoskarttaa: lokissa ei ole laskettua annoskenttää.',
    noGrid: 'ei annoskenttää',
  },
  compliance: {
    title: 'Toteuma',
    definition: 'Huone on saanut täyden annoksen, kun annosmallin mukaan sen koko lattiapinta-ala on saanut suunnitellun annoksen, tai ilman annoskenttää, kun robotti ilmoitti sen desinfioiduksi.',
    jobs: 'Tehtäviä',
    planned: 'Suunniteltuja huoneita',
    fullyDosed: 'Täysi annos',
    rate: 'Osuus',
    building: 'Rakennus',
    byBuilding: 'Rakennuksittain',
    week: 'Viikko',
    byWeek: 'Viikoittain',
    trend: 'Kehitys: täyden annoksen saaneiden huoneiden osuus viikoittain',
    everyRoom: 'Kaikki huoneet',
    nothing: 'Jaksolla ei ole huoneita.',
    noBuilding: '(huone poistettu)',
  },
  yes: 'kyllä',
  no: 'ei',
  robotActor: 'robotti',
};

const se: ReportTexts = {
  jobTitle: 'Desinfektionsrapport',
  periodTitle: 'Rapport om desinfektionens efterlevnad',
  job: 'Uppdrag',
  robot: 'Robot',
  plannedBy: 'Planerat av',
  plannedStart: 'Planerad start',
  started: 'Började',
  startedBy: 'Startat av',
  scheduler: 'schemaläggaren, vid planerad start',
  ended: 'Slutade',
  status: 'Resultat',
  reason: 'Orsak',
  timezone: 'Tider i',
  generated: 'Skapad',
  generatedBy: 'av',
  scope: 'Omfattning',
  period: 'Period',
  page: 'Sida',
  units: 'Doser i J/m², mJ/cm² inom parentes. Min, p10 och medel: dosmodellen över rummets golvyta; rapporterad: vad roboten rapporterade.',
  scopes: { organization: 'Organisation', building: 'Byggnad', floor: 'Våning', group: 'Grupp' },
  room: {
    order: '#',
    name: 'Rum',
    place: 'Byggnad / våning',
    job: 'Uppdrag',
    start: 'Uppdragets start',
    state: 'Status',
    planned: 'Planerad',
    min: 'Min',
    p10: 'P10',
    mean: 'Medel',
    coverage: 'Täckning',
    reported: 'Rapporterad',
    times: 'Lampan tänd',
    fullyDosed: 'Full dos',
    interruptions: 'Avbrott',
    prompts: 'Frågor',
  },
  states: { done: 'Desinficerat', aborted: 'Inte desinficerat (avbrutet)', not_ready: 'Inte klart', not_reached: 'Inte nått' },
  completion: { completed: 'Klart', aborted: 'Stoppat', failed: 'Misslyckades', interrupted: 'Avslutat medan roboten var onåbar', missed: 'Missat' },
  reasons: {
    robot_battery_low: 'Lågt batteri',
    robot_error: 'Robotfel',
    robot_offline: 'Roboten ej ansluten',
    robot_busy: 'Roboten upptagen',
    robot_not_autonomous: 'Roboten inte i autonomt läge',
  },
  events: {
    started: 'Startat',
    room_not_ready: 'Rummet markerat inte klart',
    room_ready: 'Rummet markerat klart',
    paused: 'Pausat',
    resumed: 'Återupptaget',
    prompt_asked: 'Fråga ställd',
    prompt_answered: 'Fråga besvarad',
    room_skipped: 'Rummet hoppades över',
    stopped: 'Stoppat',
    fault: 'Fel',
  },
  causes: { operator: 'en person', robot: 'roboten', confirm: 'bekräftat', skip: 'hoppade över', server: 'servern' },
  buttons: {
    skip: 'Hoppa över',
    wait: 'Vänta',
    wait_to_enter: 'Får roboten gå in?',
    wait_next_room: 'Gå till nästa rum?',
    wait_to_disinfect: 'Börja desinficera?',
    go_home: 'Åka hem?',
    continue: 'Fortsätta?',
    charge: 'Till laddning?',
  },
  sources: { console: 'konsolen', notification: 'avisering' },
  interruptions: { title: 'Avbrott', none: 'Inga avbrott.', at: 'Tid', room: 'Rum', event: 'Händelse', who: 'Vem', cause: 'Orsak', dose: 'Dos då' },
  prompts: {
    title: 'Frågor',
    none: 'Inga frågor.',
    asked: 'Ställd',
    room: 'Rum',
    question: 'Fråga',
    answered: 'Besvarad',
    by: 'Av',
    answer: 'Svar',
    via: 'Via',
    confirm: 'Bekräftad',
    skip: 'Överhoppad',
    unanswered: 'Obesvarad',
  },
  doseMap: {
    title: 'Doskarta',
    floor: 'Våning',
    legend: 'Dos (J/m², mJ/cm²)',
    trajectory: 'Robotens väg',
    plannedMark: 'planerad',
    none: 'Ingen doskarta: loggen har inget beräknat dosfält.',
    noGrid: 'inget dosfält',
  },
  compliance: {
    title: 'Efterlevnad',
    definition: 'Ett rum har fått full dos när dosmodellen visar hela golvytan vid den planerade dosen, eller, utan dosfält, när roboten rapporterade det desinficerat.',
    jobs: 'Uppdrag',
    planned: 'Planerade rum',
    fullyDosed: 'Full dos',
    rate: 'Andel',
    building: 'Byggnad',
    byBuilding: 'Per byggnad',
    week: 'Vecka',
    byWeek: 'Per vecka',
    trend: 'Trend: andel rum med full dos per vecka',
    everyRoom: 'Alla rum',
    nothing: 'Inga rum under perioden.',
    noBuilding: '(rummet borttaget)',
  },
  yes: 'ja',
  no: 'nej',
  robotActor: 'robot',
};

const catalogue: Record<Language, ReportTexts> = { en, fi, se };

export const textsOf = (language: Language): ReportTexts => catalogue[language];

const LOCALES: Record<Language, string> = { en: 'en-GB', fi: 'fi-FI', se: 'sv-SE' };

/** A timezone Intl knows, else the default (settings accept only known zones; an older ICU may not know one). */
export function knownTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return DEFAULT_TIMEZONE;
  }
}

/** Formatting in one language and timezone; formatters are made once per report (making one costs far more than using it). */
export interface Formatter {
  language: Language;
  timeZone: string;
  texts: ReportTexts;
  /** Date and time, e.g. 29.3.2026 10.05 (fi). */
  dateTime(at: string | Date | null | undefined): string;
  /** Time of day only, e.g. 10:05. */
  time(at: string | Date | null | undefined): string;
  /** A calendar date (yyyy-mm-dd, read as such) in the language's way. */
  day(date: string): string;
  /** A dose in J/m² with mJ/cm² beside it: "120.0 (12.0)". */
  dose(jPerM2: number | null | undefined): string;
  /** A share 0–1 as a percentage. */
  percent(share: number | null | undefined): string;
  number(value: number): string;
}

export function formatter(language: Language, timeZone: string): Formatter {
  const locale = LOCALES[language];
  const zone = knownTimeZone(timeZone);
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short', timeZone: zone });
  const timeFormat = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone: zone });
  const dayFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const oneDecimal = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
  const instant = (at: string | Date) => (typeof at === 'string' ? new Date(at) : at);
  return {
    language,
    timeZone: zone,
    texts: catalogue[language],
    dateTime: (at) => (at ? dateTimeFormat.format(instant(at)) : '–'),
    time: (at) => (at ? timeFormat.format(instant(at)) : '–'),
    day: (date) => dayFormat.format(new Date(`${date}T00:00:00Z`)),
    dose: (value) => (value === null || value === undefined ? '–' : `${oneDecimal.format(value)} (${oneDecimal.format(value / 10)})`),
    percent: (share) => (share === null || share === undefined ? '–' : percent.format(share)),
    number: (value) => plain.format(value),
  };
}

/**
 * An instant as ISO 8601 with the offset of `timeZone` at that instant (2026-03-29T10:05:00+03:00): what the CSV
 * holds, unambiguous in any spreadsheet and still the caller's wall clock.
 */
export function isoInZone(at: string | Date | null | undefined, timeZone: string): string {
  if (!at) return '';
  const instant = typeof at === 'string' ? new Date(at) : at;
  const parts = new Map(isoFormat(timeZone).formatToParts(instant).map((part) => [part.type, part.value]));
  const offset = (parts.get('timeZoneName') ?? 'GMT').replace('GMT', '') || '+00:00';
  return `${parts.get('year') ?? ''}-${parts.get('month') ?? ''}-${parts.get('day') ?? ''}T${parts.get('hour') ?? ''}:${parts.get('minute') ?? ''}:${parts.get('second') ?? ''}${offset}`;
}

const isoFormats = new Map<string, Intl.DateTimeFormat>();
function isoFormat(timeZone: string): Intl.DateTimeFormat {
  let format = isoFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: knownTimeZone(timeZone),
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    isoFormats.set(timeZone, format);
  }
  return format;
}

/** An event's cause in words: a known one translated, a prompt's button as its question, else as sent (a fault's error type). */
export function causeText(texts: ReportTexts, cause: string | null | undefined): string {
  if (!cause) return '';
  if (cause in texts.causes) return texts.causes[cause] ?? cause;
  if (cause in texts.buttons) return texts.buttons[cause as ActionButtonText];
  return cause;
}

/** Who started a job, in words: the username, or the scheduler; a dash when the log does not say. */
export const startedByText = (format: Formatter, started: { by: string | null } | null): string =>
  started === null ? '–' : (started.by ?? format.texts.scheduler);

/** One event on one line: "10:02 Paused (anna, a person; 120.0 (12.0))". */
export function eventText(format: Formatter, event: LoggedJobEvent): string {
  const details = [event.actor ?? '', causeText(format.texts, event.cause)].filter((part) => part !== '').join(', ');
  const dose = event.dose === null ? '' : `${details ? '; ' : ''}${format.dose(event.dose)}`;
  const room = event.order_no === null || event.room_name === null ? '' : ` ${event.room_name}`;
  return `${format.time(event.at)} ${format.texts.events[event.kind]}${room}${details || dose ? ` (${details}${dose})` : ''}`;
}

/** One prompt on one line: "10:01 May I enter? → Confirmed 10:02 anna (console)". */
export function promptText(format: Formatter, prompt: LoggedPrompt): string {
  const { prompts } = format.texts;
  const question = `${format.time(prompt.asked_at)} ${format.texts.buttons[prompt.button]}`;
  if (prompt.answered_at === null) return `${question} → ${prompts.unanswered}`;
  const answer = prompt.confirm === false ? prompts.skip : prompts.confirm;
  const via = prompt.source ? ` (${format.texts.sources[prompt.source]})` : '';
  return `${question} → ${answer} ${format.time(prompt.answered_at)}${prompt.answered_by ? ` ${prompt.answered_by}` : ''}${via}`;
}
