import { useState } from 'react';
import { Button, Modal } from 'react-bootstrap';
import { Link } from 'react-router';
import { RobotMode } from '@uvd/contracts';
import type { Robot, RobotCommand } from '@uvd/contracts';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { paths } from '../../../config/paths.ts';
import { robotNeverReported, robotOffline } from '../../../lib/robot-presence.ts';
import { errorMessage } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { useRobotCommand } from '../api/robot-command.ts';
import { robotStatusLabel } from '../../../lib/robot-status.ts';
import { BatteryIndicator, SignalIndicator, UnknownValue } from './robot-indicators.tsx';

/** Behaviour §2 controls: play/resume, pause, stop, home (the contract's `play` starts or resumes). */
type Control = Extract<RobotCommand, 'play' | 'pause' | 'stop' | 'home'>;
const CONTROLS: readonly Control[] = ['play', 'pause', 'stop', 'home'];

/** Behaviour §3 mode labels by mode number. */
const MODE_KEYS = ['robotModes.0', 'robotModes.1', 'robotModes.2', 'robotModes.3', 'robotModes.4'] as const;

export interface RobotDialogProps {
  robot: Robot | undefined;
  showMode: boolean;
  onClose: () => void;
}

export const RobotDialog = ({ robot, showMode, onClose }: RobotDialogProps) => {
  const { t } = useTranslation();
  const command = useRobotCommand();
  const [pending, setPending] = useState<Control | null>(null);
  // Behaviour §4: controls only while the robot is Autonomous, but Stop in every mode in which the robot reports (it
  // only turns the lamp off and cancels); a live mode change enables or disables them at once.
  const controlsEnabled = robot?.mode === RobotMode.autonomous;
  const stopEnabled = robot !== undefined && !robotOffline(robot);
  const enabled = (name: Control) => (name === 'stop' ? stopEnabled : controlsEnabled);
  // An offline robot takes no command, not even Stop: say that it is offline rather than which mode it needs.
  const controlsHint = robot && robotOffline(robot) ? t('robotControls.notReporting') : t('robotControls.onlyAutonomous');

  const send = () => {
    if (!robot || !pending) return;
    command.mutate(
      { robotId: robot.robot_id, command: pending },
      {
        onSuccess: (ok) => {
          if (ok) toast.success(t('robotControls.commandSuccess'));
          else toast.error(t('robotControls.commandFail'));
        },
        onError: (error) => {
          toast.error(errorMessage(t, error, 'robotControls.commandFail'));
        },
        onSettled: () => {
          setPending(null);
        },
      },
    );
  };

  return (
    <>
      <Modal show={robot !== undefined && pending === null} onHide={onClose} centered aria-labelledby="robot-dialog-title">
        {robot ? (
          <>
            <Modal.Header closeButton closeLabel={t('common.close')}>
              <Modal.Title id="robot-dialog-title" as="h2" className="h5">
                {robot.name}
              </Modal.Title>
            </Modal.Header>
            <Modal.Body>
              <dl className="row mb-3">
                <dt className="col-5">{t('robotTable.status')}</dt>
                <dd className="col-7">
                  {robotNeverReported(robot) ? (
                    <UnknownValue testId="robot-status" label={t('robotTable.statusUnknown')} />
                  ) : (
                    robotStatusLabel(t, robot.status)
                  )}
                </dd>
                {showMode ? (
                  <>
                    <dt className="col-5">{t('robotTable.mode')}</dt>
                    <dd className="col-7" data-testid="robot-mode">
                      {t(MODE_KEYS[robot.mode])}
                    </dd>
                  </>
                ) : null}
                <dt className="col-5">{t('robotTable.battery')}</dt>
                <dd className="col-7">
                  <BatteryIndicator battery={robot.battery} charging={robot.charging_status === 1} />
                </dd>
                <dt className="col-5">{t('robotTable.signal')}</dt>
                <dd className="col-7">
                  <SignalIndicator ping={robot.signal} />
                </dd>
              </dl>
              <div role="group" aria-label={t('robotControls.label')} className="d-flex flex-wrap gap-2">
                {CONTROLS.map((name) => (
                  <Button
                    key={name}
                    variant={name === 'stop' ? 'outline-danger' : 'outline-primary'}
                    disabled={!enabled(name) || command.isPending}
                    aria-describedby={enabled(name) ? undefined : 'robot-controls-hint'}
                    onClick={() => {
                      setPending(name);
                    }}
                  >
                    {t(`robotControls.${name}`)}
                  </Button>
                ))}
              </div>
              {controlsEnabled ? null : (
                <p id="robot-controls-hint" className="form-text mb-0 mt-2">
                  {controlsHint}
                </p>
              )}
            </Modal.Body>
            <Modal.Footer className="justify-content-between">
              <Link to={paths.jobs.getHref({ robot: robot.robot_id })} className="btn btn-link px-0">
                {t('robotControls.showJobs')}
              </Link>
              <Button variant="outline-secondary" onClick={onClose}>
                {t('common.close')}
              </Button>
            </Modal.Footer>
          </>
        ) : null}
      </Modal>
      <ConfirmDialog
        show={robot !== undefined && pending !== null}
        title={pending ? t(`robotControls.confirm.${pending}`, { name: robot?.name ?? '' }) : ''}
        body={t('robotControls.confirmBody')}
        confirmLabel={pending ? t(`robotControls.${pending}`) : undefined}
        variant={pending === 'stop' ? 'danger' : 'primary'}
        busy={command.isPending}
        onConfirm={send}
        onCancel={() => {
          setPending(null);
        }}
      />
    </>
  );
};
