import type { LogEntry, LoggedJobEvent, LoggedPrompt, LoggedRoom } from '@uvd/contracts';
import { Suspense, lazy, useState } from 'react';
import { Button, Form, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Skeleton } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime } from '../../../lib/format-date.ts';
import { toast } from '../../../lib/toast.ts';
import { useLog, useUpdateLogNotes } from '../api/logs-query.ts';

// The plan, its zoom and the floor queries load when a row with a trajectory opens, not with the logs list.
const TrajectoryMap = lazy(async () => ({ default: (await import('./trajectory-map.tsx')).TrajectoryMap }));

type RoomResult = 'disinfected' | 'not_disinfected' | 'not_ready' | 'not_reached';

/**
 * Spec §3 room result labels: a room whose lamp ran and was interrupted reads "Not disinfected (Aborted)"; one the
 * robot never began stays "Not reached", whatever ended the job.
 */
export const roomResult = (room: LoggedRoom): RoomResult => {
  if (room.state === 'done') return 'disinfected';
  if (room.state === 'aborted') return 'not_disinfected';
  return room.state;
};

/** J/m² received of the planned dose, as the robot reported it (one decimal); the planned dose alone when it did not. */
const DoseCell = ({ room }: { room: LoggedRoom }) => {
  const { t } = useTranslation();
  if (room.dose_received === null) return <>{room.dose}</>;
  return <>{t('logDetail.doseOf', { received: Math.round(room.dose_received * 10) / 10, planned: room.dose })}</>;
};

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
                    answer: t(prompt.confirm ? 'actions.confirm' : 'actions.skip'),
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

/** What happened to the job while it ran (a room's readiness changed, …): what, who, when, and the dose by then. */
const EventList = ({ events, timezone }: { events: readonly LoggedJobEvent[]; timezone: string }) => {
  const { t } = useTranslation();
  if (events.length === 0) return null;
  return (
    <>
      <h2 className="h6">{t('logDetail.events')}</h2>
      <ul className="list-unstyled mb-2">
        {events.map((event, index) => (
          // Events are listed as recorded and never reordered: their place is their key.
          <li key={`${String(index)}-${event.at}`} className="mb-2" data-testid="logged-event">
            <div>
              {t(`logDetail.event.${event.kind}`, {
                room: event.room_name ?? '–',
                by: event.actor ?? '–',
                at: formatDateTime(event.at, timezone),
              })}
            </div>
            {event.dose === null ? null : (
              <div className="text-body-secondary">{t('logDetail.eventDose', { dose: event.dose })}</div>
            )}
          </li>
        ))}
      </ul>
    </>
  );
};

/** The expanded row (spec §2 "Logs list"): robot, creator, times, notes, logged rooms and the trajectory map. */
export const LogDetail = ({ id }: { id: string }) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const log = useLog(id);
  if (log.isPending) return <Skeleton lines={4} />;
  if (log.isError)
    return (
      <div className="alert alert-danger mb-0" role="alert">
        {t('logDetail.error')}
      </div>
    );
  const entry = log.data;
  const rooms = [...entry.attributes.rooms].sort((a, b) => a.order - b.order);
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
      <NotesEditor key={entry.notes} entry={entry} />
      <h2 className="h6">{t('logDetail.rooms')}</h2>
      {rooms.length === 0 ? (
        <p className="text-body-secondary">{t('logDetail.nodata')}</p>
      ) : (
        <div className="table-responsive">
          <Table size="sm" className="mb-2">
            <thead>
              <tr>
                <th scope="col">{t('logDetail.order')}</th>
                <th scope="col">{t('logDetail.room')}</th>
                <th scope="col">{t('logDetail.status')}</th>
                <th scope="col">{t('logDetail.dose')}</th>
              </tr>
            </thead>
            <tbody>
              {rooms.map((room) => (
                <tr key={`${String(room.order)}-${room.room_id}`} data-testid="logged-room">
                  <td>{room.order + 1}</td>
                  <td>{room.room_name}</td>
                  <td>{t(`roomResult.${roomResult(room)}`)}</td>
                  <td>
                    <DoseCell room={room} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
      <PromptList prompts={entry.attributes.prompts} timezone={timezone} />
      <EventList events={entry.events} timezone={timezone} />
      {entry.trajectory && entry.trajectory.length > 0 ? (
        <Suspense fallback={<Spinner />}>
          <TrajectoryMap points={entry.trajectory} />
        </Suspense>
      ) : null}
    </div>
  );
};
