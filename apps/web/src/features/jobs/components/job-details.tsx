import { useEffect, useState } from 'react';
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Form, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { DEFAULT_STOP_ALERT_MS } from '@uvd/contracts';
import type { Action, Job, PendingCommand } from '@uvd/contracts';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { paths } from '../../../config/paths.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime, TIME_FORMAT } from '../../../lib/format-date.ts';
import { undeliveredKey } from '../../../lib/live/undelivered.ts';
import { errorMessage } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { listReturnState } from '../../../lib/use-list-address.ts';
import { useJobCommand, useRoomReadiness } from '../api/job-commands.ts';
import type { JobCommandKind } from '../api/job-commands.ts';
import { useJobAction } from '../api/jobs-query.ts';
import { CURRENT_ROOM_PLACEHOLDER } from '../filters.ts';
import { PromptAnswer } from './prompt-answer.tsx';

/** Behaviour §4: after a successful delete the list reloads after 500 ms. */
export const DELETE_RELOAD_DELAY_MS = 500;

const TOAST_KEYS = {
  start: { success: 'jobControls.startSuccess', fail: 'jobControls.startFail', confirm: 'jobControls.confirmStart' },
  pause: { success: 'jobControls.pauseSuccess', fail: 'jobControls.pauseFail', confirm: 'jobControls.confirmPause' },
  resume: { success: 'jobControls.resumeSuccess', fail: 'jobControls.resumeFail', confirm: 'jobControls.confirmResume' },
  stop: { success: 'jobControls.stopSuccess', fail: 'jobControls.stopFail', confirm: 'jobControls.confirmStop' },
  // A command to the job's robot: behaviour §8 names the robot command toasts for it.
  home: { success: 'robotControls.commandSuccess', fail: 'robotControls.commandFail', confirm: 'jobControls.confirmHome' },
  delete: { success: 'jobControls.deleteSuccess', fail: 'jobControls.deleteFail', confirm: 'jobControls.confirmDelete' },
} as const satisfies Record<JobCommandKind, { success: string; fail: string; confirm: string }>;

const LABEL_KEYS = {
  start: 'jobControls.startNow',
  pause: 'jobControls.pause',
  resume: 'jobControls.resume',
  stop: 'jobControls.stop',
  home: 'jobControls.home',
  delete: 'jobControls.delete',
} as const satisfies Record<JobCommandKind, string>;

/**
 * Behaviour §4 which commands a job offers: start-now only Scheduled, pause disinfecting, resume paused, stop always,
 * and the optional home (the robot of a Running job back to its dock) with its confirmation.
 */
export const offeredCommands = (job: Job): JobCommandKind[] => {
  // A robot that is unreachable takes no command now; its job can only be ended (the stop waits for the robot).
  if (job.status === 'Running' && job.connection_lost_since) return ['stop'];
  const kinds: JobCommandKind[] = [];
  if (job.status === 'Scheduled') kinds.push('start');
  if (job.status === 'Running' && job.active_state === 'disinfecting') kinds.push('pause');
  if (job.status === 'Running' && job.active_state === 'paused') kinds.push('resume');
  if (job.status === 'Running') kinds.push('home');
  kinds.push('stop');
  return kinds;
};

export interface JobDetailsProps {
  job: Job;
  /** Reloads the list after a delete; the other commands' effects arrive on the jobs stream (job_change). */
  onReload: () => void;
}

/** The expanded row (behaviour §2): details, room list, commands and the operator prompt. */
export const JobDetails = ({ job, onReload }: JobDetailsProps) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const navigate = useNavigate();
  const { search } = useLocation();
  const command = useJobCommand();
  const queryClient = useQueryClient();
  // Set by the robot stream when a command for this job never reached the robot (lib/live/undelivered.ts).
  const undelivered = useQuery<string | null>({ queryKey: undeliveredKey(job.job_id), queryFn: skipToken }).data;
  const readiness = useRoomReadiness();
  const [pending, setPending] = useState<JobCommandKind | null>(null);
  const [runningError, setRunningError] = useState(false);
  const editable = job.status !== 'Running';

  const notes = job.notes.split(CURRENT_ROOM_PLACEHOLDER).join(t('jobTable.currentRoom'));
  const connectionLost = job.status === 'Running' ? (job.connection_lost_since ?? null) : null;
  const labelOf = (kind: JobCommandKind) => (kind === 'stop' && connectionLost ? t('jobControls.endJob') : t(LABEL_KEYS[kind]));

  const run = (kind: JobCommandKind) => {
    const keys = TOAST_KEYS[kind];
    queryClient.setQueryData(undeliveredKey(job.job_id), null);
    command.mutate(
      { jobId: job.job_id, robotId: job.robot_id, kind },
      {
        onSuccess: (ok) => {
          if (!ok) {
            toast.error(t(keys.fail));
            return;
          }
          toast.success(t(keys.success));
          // Start, pause, resume and stop publish the job's change (a running job's stop once the robot reports
          // the cancel) and home changes no job: the jobs stream keeps the list current. A deleted job's row goes
          // with a reload.
          if (kind === 'delete') setTimeout(onReload, DELETE_RELOAD_DELAY_MS);
        },
        onError: (error) => {
          toast.error(errorMessage(t, error, keys.fail));
        },
        onSettled: () => {
          setPending(null);
        },
      },
    );
  };

  const guarded = (action: () => void) => () => {
    if (!editable) {
      setRunningError(true);
      return;
    }
    setRunningError(false);
    action();
  };

  return (
    <div className="p-2" data-testid="job-details">
      <dl className="row mb-2">
        <dt className="col-sm-3">{t('jobTable.robot')}</dt>
        <dd className="col-sm-9">{job.robot_name}</dd>
        <dt className="col-sm-3">{t('jobTable.startTime')}</dt>
        <dd className="col-sm-9">{formatDateTime(job.start_time, timezone)}</dd>
        {job.started_at ? (
          <>
            <dt className="col-sm-3">{t('jobTable.startedAt')}</dt>
            <dd className="col-sm-9">{formatDateTime(job.started_at, timezone)}</dd>
          </>
        ) : null}
        <dt className="col-sm-3">{t('jobTable.createdAt')}</dt>
        <dd className="col-sm-9">{formatDateTime(job.created_at, timezone)}</dd>
        <dt className="col-sm-3">{t('jobTable.createdBy')}</dt>
        <dd className="col-sm-9">{job.created_by}</dd>
        <dt className="col-sm-3">{t('jobTable.notes')}</dt>
        <dd className="col-sm-9" style={{ whiteSpace: 'pre-wrap' }}>
          {notes}
        </dd>
      </dl>
      {connectionLost ? (
        <div className="alert alert-warning" role="status" data-testid="job-connection-lost">
          {t('jobStatus.connectionLost', { time: formatDateTime(connectionLost, timezone, TIME_FORMAT) })}
        </div>
      ) : null}
      {job.status === 'Scheduled' && job.not_started_reason ? (
        <div className="alert alert-warning" role="status">
          {t('jobStatus.notStarted', { reason: t(`notStartedReason.${job.not_started_reason}`) })}
        </div>
      ) : null}
      {job.pending_command ? <PendingNotice key={`${job.pending_command.command} ${job.pending_command.since}`} pending={job.pending_command} /> : null}
      {job.status === 'Running' && !connectionLost ? <ActionPrompt job={job} /> : null}
      <Table size="sm" responsive aria-label={t('jobTable.rooms')}>
        <thead>
          <tr>
            <th scope="col">{t('jobTable.order')}</th>
            <th scope="col">{t('jobTable.room')}</th>
            <th scope="col">{t('jobTable.ready')}</th>
            <th scope="col">{t('jobTable.dose')}</th>
          </tr>
        </thead>
        <tbody>
          {[...job.rooms]
            .sort((a, b) => a.order_no - b.order_no)
            .map((room) => (
              <tr key={room.room_id}>
                <td>{room.order_no + 1}</td>
                <td>{room.room_name ?? room.room_id}</td>
                <td>
                  <Form.Check
                    type="switch"
                    id={`ready-${job.job_id}-${room.room_id}`}
                    aria-label={`${t('jobTable.ready')}: ${room.room_name ?? room.room_id}`}
                    checked={room.ready_for_disinfection ?? false}
                    onChange={(event) => {
                      readiness.mutate({ roomId: room.room_id, ready: event.target.checked });
                    }}
                  />
                </td>
                <td>{room.dose}</td>
              </tr>
            ))}
        </tbody>
      </Table>
      <div className="d-flex flex-wrap gap-2">
        {offeredCommands(job).map((kind) => (
          <Button
            key={kind}
            size="sm"
            variant={kind === 'stop' ? 'outline-danger' : 'outline-primary'}
            onClick={() => {
              setPending(kind);
            }}
          >
            {labelOf(kind)}
          </Button>
        ))}
        <Button
          size="sm"
          variant="outline-secondary"
          onClick={guarded(() => {
            void navigate(paths.jobEdit.getHref(job.job_id), { state: listReturnState(search) });
          })}
        >
          {t('jobControls.edit')}
        </Button>
        <Button
          size="sm"
          variant="outline-secondary"
          onClick={() => {
            void navigate(paths.map.getHref({ job: job.job_id, robot: job.robot_id, show_trajectory: true }));
          }}
        >
          {t('jobControls.showOnMap')}
        </Button>
        <Button
          size="sm"
          variant="outline-danger"
          onClick={guarded(() => {
            setPending('delete');
          })}
        >
          {t('jobControls.delete')}
        </Button>
      </div>
      {runningError ? (
        <div className="alert alert-warning mt-2 mb-0" role="alert">
          {t('jobControls.errorJobRunning')}
        </div>
      ) : null}
      {undelivered ? (
        <div className="alert alert-danger mt-2 mb-0" role="alert" data-testid="job-undelivered">
          {undelivered}
        </div>
      ) : null}
      <ConfirmDialog
        show={pending !== null}
        title={pending === 'stop' && connectionLost ? t('jobControls.confirmEndOffline') : pending ? t(TOAST_KEYS[pending].confirm) : ''}
        body={pending === 'stop' && connectionLost ? `${job.name}: ${t('jobControls.confirmEndOfflineBody', { robot: job.robot_name })}` : job.name}
        variant={pending === 'delete' || pending === 'stop' ? 'danger' : 'primary'}
        busy={command.isPending}
        onConfirm={() => {
          if (pending) run(pending);
        }}
        onCancel={() => {
          setPending(null);
        }}
      />
    </div>
  );
};

/**
 * A command the robot has not confirmed yet: the job shows what the robot reported, and this beside it. A stop not
 * confirmed within the alert time is an alert: the lamp may still be on (the server resends it until confirmed).
 */
const PendingNotice = ({ pending }: { pending: PendingCommand }) => {
  const { t } = useTranslation();
  const alertAt = Date.parse(pending.since) + DEFAULT_STOP_ALERT_MS;
  const isStop = pending.command === 'stop';
  const [overdue, setOverdue] = useState(() => isStop && Date.now() >= alertAt);
  useEffect(() => {
    if (!isStop) return undefined;
    const timer = setTimeout(
      () => {
        setOverdue(true);
      },
      Math.max(0, alertAt - Date.now()),
    );
    return () => {
      clearTimeout(timer);
    };
  }, [isStop, alertAt]);
  if (isStop && overdue) {
    return (
      <div className="alert alert-danger" role="alert" data-testid="job-stop-unconfirmed">
        {t('jobControls.stopUnconfirmed')}
      </div>
    );
  }
  return (
    <div className="alert alert-info" role="status" data-testid="job-pending-command">
      {t(`jobControls.pending.${pending.command}`)}
    </div>
  );
};

/** Behaviour §4 operator prompt of a Running job: confirm (through a dialog) or skip, then it hides. */
const ActionPrompt = ({ job }: { job: Job }) => {
  const { t } = useTranslation();
  const action = useJobAction(job.job_id, true);
  const current: Action | null | undefined = action.data;
  if (!current || current.button.disabled) return null;
  const question = t(`actions.${current.button.text}`);
  return (
    <div className="alert alert-info d-flex flex-wrap align-items-center gap-2" role="group" aria-label={question}>
      <span className="me-auto">{question}</span>
      <PromptAnswer
        prompt={{ ...current, robot_name: job.robot_name, room_name: job.progress?.current_room?.room_name ?? null }}
        label={question}
      />
    </div>
  );
};
