import { ActionButtonText } from '@uvd/contracts';
import type { LogDose, LogEntry, LoggedJobEvent, LoggedPrompt, LoggedRoom, RoomDoseStats } from '@uvd/contracts';
import { Suspense, lazy, useState } from 'react';
import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Skeleton } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { toast } from '../../../lib/toast.ts';
import type { TFunction } from 'i18next';
import { useLogDose } from '../api/get-log-dose.ts';
import { useLog, useUpdateLogNotes } from '../api/logs-query.ts';
import { doseScaleOf } from './dose-scale.ts';
import { ReportDownloads } from './report-downloads.tsx';
import { RoomResults } from './room-results.tsx';

// The plan, its zoom and the floor queries load when a row with a trajectory opens, not with the logs list.
const TrajectoryMap = lazy(async () => ({ default: (await import('./trajectory-map.tsx')).TrajectoryMap }));
const DoseMaps = lazy(async () => ({ default: (await import('./dose-map.tsx')).DoseMaps }));

const NotesEditor = ({ entry }: { entry: LogEntry }) => {
  const { t } = useTranslation();
  const [notes, setNotes] = useState(entry.notes);
  const update = useUpdateLogNotes();
  const id = `log-notes-${entry.job_id}`;
  return (
    <Form
      className="mb-3"
      onSubmit={(event) => {
        event.preventDefault();
        update.mutate(
          { id: entry.job_id, notes },
          {
            onSuccess: () => {
              toast.success(t('logDetail.success'));
            },
            onError: () => {
              toast.error(t('logDetail.failure'));
            },
          },
        );
      }}
    >
      <Form.Label htmlFor={id}>{t('logDetail.notes')}</Form.Label>
      <Form.Control
        as="textarea"
        id={id}
        rows={3}
        value={notes}
        onChange={(event) => {
          setNotes(event.target.value);
        }}
      />
      <Button type="submit" size="sm" className="mt-2" disabled={update.isPending || notes === entry.notes}>
        {update.isPending ? <Spinner size="sm" /> : null} {t('logDetail.saveNotes')}
      </Button>
    </Form>
  );
};

/**
 * The robot's questions during the job and their answers: who, when, and from where (console or notification).
 * A list, not a table: five columns do not fit a phone.
 */
const PromptList = ({ prompts, timezone }: { prompts: readonly LoggedPrompt[]; timezone: string }) => {
  const { t } = useTranslation();
  if (prompts.length === 0) return null;
  return (
    <>
      <h2 className="h6">{t('logDetail.prompts')}</h2>
      <ul className="list-unstyled mb-2">
        {prompts.map((prompt) => (
          <li key={prompt.action_id} className="mb-2" data-testid="logged-prompt">
            <div>
              <span className="fw-bold">{t(`actions.${prompt.button}`)}</span>
              {prompt.room_name ? ` · ${prompt.room_name}` : null}
            </div>
            <div className="text-body-secondary">
              {prompt.confirm === null
                ? t('logDetail.unanswered')
                : t('logDetail.answered', {
                    answer: t(prompt.confirm ? 'logDetail.cause.confirm' : 'logDetail.cause.skip'),
                    by: prompt.answered_by ?? '–',
                    at: prompt.answered_at === null ? '–' : formatDateTime(prompt.answered_at, timezone),
                    source: t(`logDetail.source.${prompt.source ?? 'console'}`),
                  })}
            </div>
          </li>
        ))}
      </ul>
    </>
  );
};

/** Causes an event may name that the console words itself; a prompt's button is worded as its prompt. */
const KNOWN_CAUSES = [
  'operator',
  'robot',
  'server',
  'scheduler',
  'confirm',
  'skip',
  'robot_offline',
  'robot_battery_low',
  'room_not_ready',
  'uvd_low_battery',
  'uvd_link_lost',
  'uvd_path_blocked',
  'orderError',
  'orderUpdateError',
] as const;
type KnownCause = (typeof KNOWN_CAUSES)[number];
const isKnownCause = (cause: string): cause is KnownCause => (KNOWN_CAUSES as readonly string[]).includes(cause);

/** An event's cause in the user's language; a cause the console does not know (a robot's own error type) as sent. */
export const causeText = (t: TFunction, cause: string): string => {
  if (isKnownCause(cause)) return t(`logDetail.cause.${cause}`);
  const button = ActionButtonText.safeParse(cause);
  return button.success ? t(`actions.${button.data}`) : cause;
};

/** Kinds whose line already says the cause (the prompt's question, the answer given, the fault). */
const CAUSE_IN_LINE = new Set<LoggedJobEvent['kind']>(['prompt_asked', 'prompt_answered', 'fault']);

/**
 * What happened to the job while it ran (a room's readiness changed, a pause, a prompt and its answer, a skip, a
 * stop, a fault): what, where, who, when, why, and the dose the room had by then.
 */
const EventList = ({ events, timezone }: { events: readonly LoggedJobEvent[]; timezone: string }) => {
  const { t } = useTranslation();
  if (events.length === 0) return null;
  return (
    <>
      <h2 className="h6">{t('logDetail.events')}</h2>
      <ul className="list-unstyled mb-2">
        {events.map((event, index) => {
          const cause = event.cause ?? null;
          const robotActs = event.kind === 'fault' || event.kind === 'prompt_asked' || cause === 'robot';
          return (
            // Events are listed as recorded and never reordered: their place is their key.
            <li key={`${String(index)}-${event.at}`} className="mb-2" data-testid="logged-event">
              <div>
                {t(`logDetail.event.${event.kind}`, {
                  room: event.room_name ?? t('logDetail.wholeJob'),
                  by: event.actor ?? t(robotActs ? 'logDetail.byRobot' : 'logDetail.bySystem'),
                  at: formatDateTime(event.at, timezone),
                  cause: cause === null ? '–' : causeText(t, cause),
                })}
              </div>
              {cause === null || CAUSE_IN_LINE.has(event.kind) ? null : (
                <div className="text-body-secondary">{t('logDetail.eventCause', { cause: causeText(t, cause) })}</div>
              )}
              {event.dose === null ? null : (
                <div className="text-body-secondary">{t('logDetail.eventDose', { dose: Math.round(event.dose * 10) / 10 })}</div>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
};

/** A room's figures from the dose model: the log's own, else the dose map's for the same place in the job. */
const statsFinder =
  (dose: LogDose | null | undefined) =>
  (room: LoggedRoom): RoomDoseStats | null =>
    room.dose_stats ?? dose?.rooms.find((candidate) => candidate.order === room.order && candidate.room_id === room.room_id)?.stats ?? null;

/** The expanded row (behaviour §2 "Logs list"): robot, creator, times, notes, logged rooms and the trajectory map. */
export const LogDetail = ({ id }: { id: string }) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const log = useLog(id);
  const dose = useLogDose(id);
  if (log.isPending) return <Skeleton lines={4} />;
  if (log.isError)
    return (
      <div className="alert alert-danger mb-0" role="alert">
        {t('logDetail.error')}
      </div>
    );
  const entry = log.data;
  const rooms = [...entry.attributes.rooms].sort((a, b) => a.order - b.order);
  const trajectory = entry.trajectory ?? [];
  const doseMap = dose.data ?? null;
  return (
    // Padded like the jobs list's details: the grid row's negative margins stay inside the table cell.
    <div className="p-2" data-testid="log-detail">
      <dl className="row mb-2">
        <dt className="col-sm-3">{t('logDetail.robot')}</dt>
        <dd className="col-sm-9">{entry.robot_name}</dd>
        <dt className="col-sm-3">{t('logDetail.creator')}</dt>
        <dd className="col-sm-9">{entry.created_by}</dd>
        <dt className="col-sm-3">{t('logDetail.startTime')}</dt>
        <dd className="col-sm-9">{formatDateTime(entry.starttime, timezone)}</dd>
        <dt className="col-sm-3">{t('logDetail.endTime')}</dt>
        <dd className="col-sm-9">{entry.endtime === null ? '–' : formatDateTime(entry.endtime, timezone)}</dd>
      </dl>
      <ReportDownloads entry={entry} timezone={timezone} />
      <NotesEditor key={entry.notes} entry={entry} />
      <div className="row">
        {/* Beside each other from 1400 px: narrower, the results' eight columns need the whole width. */}
        <div className={doseMap ? 'col-12 col-xxl-5' : 'col-12'}>
          <h2 className="h6" id="log-rooms-heading">
            {t('logDetail.rooms')}
          </h2>
          {rooms.length === 0 ? (
            <p className="text-body-secondary">{t('logDetail.nodata')}</p>
          ) : (
            <RoomResults rooms={rooms} statsOf={statsFinder(doseMap)} />
          )}
          <PromptList prompts={entry.attributes.prompts} timezone={timezone} />
          <EventList events={entry.events} timezone={timezone} />
        </div>
        <div className={doseMap ? 'col-12 col-xxl-7' : 'col-12'}>
          {dose.isPending ? (
            <Skeleton lines={2} />
          ) : dose.isError ? (
            <div className="alert alert-warning" role="alert">
              {t('dose.loadFailed')}
            </div>
          ) : doseMap ? (
            <Suspense fallback={<Spinner />}>
              <DoseMaps dose={doseMap} trajectory={trajectory} scale={doseScaleOf(doseMap)} />
            </Suspense>
          ) : rooms.length > 0 ? (
            <p className="text-body-secondary" data-testid="no-dose-map">
              {t(entry.has_trajectory ? 'dose.noneComputed' : 'dose.noneWithoutPath')}
            </p>
          ) : null}
          {/* Without a dose map the path is still worth seeing on its own. */}
          {!doseMap && !dose.isPending && trajectory.length > 0 ? (
            <Suspense fallback={<Spinner />}>
              <TrajectoryMap points={trajectory} />
            </Suspense>
          ) : null}
        </div>
      </div>
    </div>
  );
};
