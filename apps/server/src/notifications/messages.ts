/**
 * The words of a push, in the recipient's language (their settings: EN, FI, SE; English is the fallback) with
 * times in their timezone. The console's own translations live in the web app; these are the few a phone shows
 * before the console opens.
 */
import type { ActionButtonText, NotStartedReason, PushEventKind } from '@uvd/contracts';

export type Language = 'en' | 'fi' | 'se';

interface Texts {
  jobStarted: (job: string, robot: string, time: string) => [string, string];
  jobCompleted: (job: string, robot: string, time: string) => [string, string];
  jobStopped: (job: string, robot: string, time: string) => [string, string];
  jobFailed: (job: string, robot: string, time: string) => [string, string];
  jobInterrupted: (job: string, robot: string, time: string) => [string, string];
  jobMissed: (job: string, robot: string, time: string) => [string, string];
  jobNotStarted: (job: string, robot: string, time: string) => [string, string];
  /** Why a job did not start (or was missed, or rooms were not reached). */
  reasons: Record<NotStartedReason, string>;
  prompt: (robot: string, room: string | null, job: string) => string;
  escalation: (robot: string, minutes: number) => string;
  batteryLow: (robot: string, battery: number, time: string) => [string, string];
  stopUnconfirmed: (robot: string, time: string) => [string, string];
  buttons: Record<ActionButtonText, string>;
  confirm: string;
  skip: string;
}

const en: Texts = {
  jobStarted: (job, robot, time) => ['Job started', `${job} started on ${robot} at ${time}.`],
  jobCompleted: (job, robot, time) => ['Job completed', `${job} on ${robot} was completed at ${time}.`],
  jobStopped: (job, robot, time) => ['Job stopped', `${job} on ${robot} was stopped at ${time}.`],
  jobFailed: (job, robot, time) => ['Job failed', `${job} on ${robot} failed at ${time}.`],
  jobInterrupted: (job, robot, time) => [
    'Job ended while the robot is unreachable',
    `${job} on ${robot} was ended at ${time}; the stop reaches the robot when it is back.`,
  ],
  jobMissed: (job, robot, time) => ['Job missed', `${job} on ${robot} did not start in its start window (${time}).`],
  jobNotStarted: (job, robot, time) => ['Job not started', `${job} on ${robot} could not start at ${time}.`],
  reasons: {
    robot_battery_low: 'The battery is low.',
    robot_error: 'The robot reports an error.',
    robot_offline: 'The robot is offline.',
    robot_busy: 'The robot is running another job.',
    robot_not_autonomous: 'The robot is not in Autonomous mode.',
  },
  prompt: (robot, room, job) => `${robot}${room ? ` at ${room}` : ''} (${job})`,
  escalation: (robot, minutes) => `Nobody has answered ${robot} for ${minutes} min.`,
  batteryLow: (robot, battery, time) => ['Battery low', `${robot} is at ${battery} % (${time}).`],
  stopUnconfirmed: (robot, time) => [
    'Stop not yet confirmed by the robot',
    `${robot} has not confirmed the stop sent at ${time}; its lamp may still be on. It is sent again until the robot confirms it.`,
  ],
  buttons: {
    skip: 'Skip',
    wait: 'Wait',
    wait_to_enter: 'Confirm the room is empty to enter',
    wait_next_room: 'Confirm to go to the next room',
    wait_to_disinfect: 'Confirm to start disinfecting',
    go_home: 'Confirm to go home',
    continue: 'Continue',
    charge: 'Go charging',
  },
  confirm: 'Confirm',
  skip: 'Skip',
};

const fi: Texts = {
  jobStarted: (job, robot, time) => ['Tehtävä alkoi', `${job} alkoi robotilla ${robot} klo ${time}.`],
  jobCompleted: (job, robot, time) => ['Tehtävä valmis', `${job} valmistui robotilla ${robot} klo ${time}.`],
  jobStopped: (job, robot, time) => ['Tehtävä pysäytetty', `${job} pysäytettiin robotilla ${robot} klo ${time}.`],
  jobFailed: (job, robot, time) => ['Tehtävä epäonnistui', `${job} epäonnistui robotilla ${robot} klo ${time}.`],
  jobInterrupted: (job, robot, time) => [
    'Tehtävä lopetettu, robottiin ei ole yhteyttä',
    `${job} robotilla ${robot} lopetettiin klo ${time}; pysäytys välitetään robotille, kun yhteys palaa.`,
  ],
  jobMissed: (job, robot, time) => ['Tehtävä jäi aloittamatta', `${job} robotilla ${robot} ei alkanut aloitusikkunassaan (${time}).`],
  jobNotStarted: (job, robot, time) => ['Tehtävä ei alkanut', `${job} robotilla ${robot} ei voinut alkaa klo ${time}.`],
  reasons: {
    robot_battery_low: 'Akku on vähissä.',
    robot_error: 'Robotti ilmoittaa virheestä.',
    robot_offline: 'Robottiin ei ole yhteyttä.',
    robot_busy: 'Robotti tekee toista tehtävää.',
    robot_not_autonomous: 'Robotti ei ole autonomisessa tilassa.',
  },
  prompt: (robot, room, job) => `${robot}${room ? `, ${room}` : ''} (${job})`,
  escalation: (robot, minutes) => `Kukaan ei ole vastannut robotille ${robot} ${minutes} minuuttiin.`,
  batteryLow: (robot, battery, time) => ['Akku vähissä', `Robotin ${robot} akku on ${battery} % (${time}).`],
  stopUnconfirmed: (robot, time) => [
    'Robotti ei ole vielä vahvistanut pysäytystä',
    `${robot} ei ole vahvistanut klo ${time} lähetettyä pysäytystä; sen lamppu voi olla yhä päällä. Pysäytys lähetetään uudelleen, kunnes robotti vahvistaa sen.`,
  ],
  buttons: {
    skip: 'Ohita',
    wait: 'Odota',
    wait_to_enter: 'Vahvista, että huone on tyhjä, jotta robotti voi mennä sisään',
    wait_next_room: 'Vahvista siirtyminen seuraavaan huoneeseen',
    wait_to_disinfect: 'Vahvista desinfioinnin aloitus',
    go_home: 'Vahvista paluu kotiin',
    continue: 'Jatka',
    charge: 'Lataukseen',
  },
  confirm: 'Vahvista',
  skip: 'Ohita',
};

const se: Texts = {
  jobStarted: (job, robot, time) => ['Uppdraget har börjat', `${job} började på ${robot} kl. ${time}.`],
  jobCompleted: (job, robot, time) => ['Uppdraget är klart', `${job} på ${robot} blev klart kl. ${time}.`],
  jobStopped: (job, robot, time) => ['Uppdraget stoppades', `${job} på ${robot} stoppades kl. ${time}.`],
  jobFailed: (job, robot, time) => ['Uppdraget misslyckades', `${job} på ${robot} misslyckades kl. ${time}.`],
  jobInterrupted: (job, robot, time) => [
    'Uppdraget avslutat utan förbindelse till roboten',
    `${job} på ${robot} avslutades kl. ${time}; stoppet når roboten när den är tillbaka.`,
  ],
  jobMissed: (job, robot, time) => ['Uppdraget missades', `${job} på ${robot} började inte inom sitt startfönster (${time}).`],
  jobNotStarted: (job, robot, time) => ['Uppdraget har inte börjat', `${job} på ${robot} kunde inte börja kl. ${time}.`],
  reasons: {
    robot_battery_low: 'Batteriet är lågt.',
    robot_error: 'Roboten rapporterar ett fel.',
    robot_offline: 'Roboten har ingen förbindelse.',
    robot_busy: 'Roboten kör ett annat uppdrag.',
    robot_not_autonomous: 'Roboten är inte i autonomt läge.',
  },
  prompt: (robot, room, job) => `${robot}${room ? `, ${room}` : ''} (${job})`,
  escalation: (robot, minutes) => `Ingen har svarat ${robot} på ${minutes} min.`,
  batteryLow: (robot, battery, time) => ['Lågt batteri', `${robot} har ${battery} % kvar (${time}).`],
  stopUnconfirmed: (robot, time) => [
    'Roboten har ännu inte bekräftat stoppet',
    `${robot} har inte bekräftat stoppet som skickades kl. ${time}; lampan kan fortfarande vara tänd. Stoppet skickas igen tills roboten bekräftar det.`,
  ],
  buttons: {
    skip: 'Hoppa över',
    wait: 'Vänta',
    wait_to_enter: 'Bekräfta att rummet är tomt så att roboten kan gå in',
    wait_next_room: 'Bekräfta att roboten går till nästa rum',
    wait_to_disinfect: 'Bekräfta att desinficeringen börjar',
    go_home: 'Bekräfta att roboten åker hem',
    continue: 'Fortsätt',
    charge: 'Till laddning',
  },
  confirm: 'Bekräfta',
  skip: 'Hoppa över',
};

const catalogue: Record<Language, Texts> = { en, fi, se };

/** Stored settings say EN, FI or SE (behaviour §3 session user: language default EN). */
export const languageOf = (stored: string): Language => {
  const lower = stored.toLowerCase();
  return lower === 'fi' || lower === 'se' ? lower : 'en';
};

/** Hours and minutes in the recipient's timezone (24-hour in fi and se, as their users write it). */
export const clockTime = (at: Date, language: Language, timeZone: string): string => {
  const locale = language === 'fi' ? 'fi-FI' : language === 'se' ? 'sv-SE' : 'en-GB';
  try {
    return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone }).format(at);
  } catch {
    return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(at);
  }
};

/** The pushes about a job or a robot (a delivery's are delivery-pushes.ts', an account's account-pushes.ts'). */
export type RobotPushKind = Exclude<PushEventKind, `delivery_${string}` | 'password_reset_requested'>;

export interface PushFacts {
  kind: RobotPushKind;
  robotName: string;
  jobName: string | null;
  completionStatus: string | null;
  button: ActionButtonText | null;
  roomName: string | null;
  battery: number | null;
  reason: NotStartedReason | null;
  occurredAt: Date;
  escalationMinutes: number;
}

export interface PushTexts {
  title: string;
  body: string;
  choiceLabels: { confirm: string; skip: string };
}

function finishedTexts(texts: Texts, completionStatus: string | null): Texts['jobCompleted'] {
  switch (completionStatus) {
    case 'completed':
      return texts.jobCompleted;
    case 'interrupted':
      return texts.jobInterrupted;
    case 'missed':
      return texts.jobMissed;
    default:
      return texts.jobStopped;
  }
}

export function pushTexts(facts: PushFacts, language: Language, timeZone: string): PushTexts {
  const texts = catalogue[language];
  const time = clockTime(facts.occurredAt, language, timeZone);
  const job = facts.jobName ?? '';
  const robot = facts.robotName;
  const choiceLabels = { confirm: texts.confirm, skip: texts.skip };
  const pair = ([title, body]: [string, string]) => ({ title, body, choiceLabels });
  // The robot's condition that decided it, after the sentence that says what happened.
  const withReason = ([title, body]: [string, string]) => pair([title, facts.reason ? `${body} ${texts.reasons[facts.reason]}` : body]);
  switch (facts.kind) {
    case 'job_started':
      return pair(texts.jobStarted(job, robot, time));
    case 'job_finished':
      return withReason(finishedTexts(texts, facts.completionStatus)(job, robot, time));
    case 'job_failed':
      return withReason(texts.jobFailed(job, robot, time));
    case 'job_not_started':
      return withReason(texts.jobNotStarted(job, robot, time));
    case 'prompt':
      return { title: texts.buttons[facts.button ?? 'wait'], body: texts.prompt(robot, facts.roomName, job), choiceLabels };
    case 'prompt_escalation':
      return {
        title: texts.buttons[facts.button ?? 'wait'],
        body: `${texts.escalation(robot, facts.escalationMinutes)} ${texts.prompt(robot, facts.roomName, job)}`,
        choiceLabels,
      };
    case 'battery_low':
      return pair(texts.batteryLow(robot, facts.battery ?? 0, time));
    case 'stop_unconfirmed':
      return pair(texts.stopUnconfirmed(robot, time));
  }
}
