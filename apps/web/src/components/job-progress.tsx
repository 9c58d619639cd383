import { useTranslation } from 'react-i18next';
import type { Job, RoomPhase } from '@uvd/contracts';
import { useSessionUser } from '../lib/auth/auth-context.tsx';
import { formatDateTime } from '../lib/format-date.ts';

/** "In" only once the robot is in the room: not at its door waiting for an answer, nor on its way there. */
const PHASE_KEYS = {
  on_the_way: 'jobProgress.onTheWay',
  waiting: 'jobProgress.waitingAt',
  in_room: 'jobProgress.currentRoom',
} as const satisfies Record<RoomPhase, string>;

/** hh:mm a of the ETA: the day is today for a running job. */
const ETA_FORMAT = 'hh:mm a';

/**
 * A running job's progress, under its status in the jobs list and beside its robot on the map: the room the robot
 * heads to, waits at or works in, rooms finished of all, the dose delivered and the estimated end, as one line
 * and a bar. It wraps at phone width; the bar is a progressbar whose text is the whole line, so a screen reader reads the same.
 */
export const JobProgressLine = ({ job }: { job: Job }) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const progress = job.progress;
  if (job.status !== 'Running' || !progress) return null;
  const room = progress.current_room;
  const roomName = room
    ? (room.room_name ?? job.rooms.find((candidate) => candidate.order_no === room.order_no)?.room_name ?? String(room.order_no + 1))
    : null;
  const parts = [
    room && roomName ? t(PHASE_KEYS[room.phase], { room: roomName }) : null,
    t('jobProgress.rooms', { finished: progress.rooms_finished, total: progress.rooms_total }),
    t('jobProgress.dose', { delivered: progress.dose_delivered, total: progress.dose_total }),
    progress.eta ? t('jobProgress.eta', { time: formatDateTime(progress.eta, timezone, ETA_FORMAT) }) : null,
  ].filter((part): part is string => part !== null);
  const text = parts.join(' · ');
  const percent = progress.rooms_total === 0 ? 0 : Math.round((progress.rooms_finished / progress.rooms_total) * 100);
  return (
    <div className="job-progress mt-1" data-testid="job-progress">
      <div
        className="progress"
        role="progressbar"
        aria-label={t('jobProgress.label', { name: job.name })}
        aria-valuemin={0}
        aria-valuemax={progress.rooms_total}
        aria-valuenow={progress.rooms_finished}
        aria-valuetext={text}
        style={{ height: 6 }}
      >
        <div className="progress-bar" style={{ width: `${String(percent)}%` }} />
      </div>
      <div className="small text-body-secondary mt-1">{text}</div>
    </div>
  );
};
