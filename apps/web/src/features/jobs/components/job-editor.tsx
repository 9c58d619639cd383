/**
 * The job editor of behaviour §2 (/jobs/create, /jobs/edit/:jobid). Stable input ids for the browser tests:
 * #job-start-now, #job-name, #job-notes, #job-building, #job-floor, #job-robot, #job-date, #job-hours,
 * #job-minutes, #job-dose, #job-room; room cards carry data-testid="job-room-card"; the primary button is
 * #job-submit (Save, or Start now when starting immediately), then #job-cancel.
 */
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import type { ParseKeys } from 'i18next';
import { Alert, Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { errorKey, errorMessage } from '../../../lib/error-message.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { toast } from '../../../lib/toast.ts';
import { useListReturn } from '../../../lib/use-list-address.ts';
import type { JobFocusState } from '../job-focus.ts';
import { CommandRefusal, ErrorCode, JOB_NAME_MAX, JOB_NOTES_MAX } from '@uvd/contracts';
import { useEditorFloorRobots } from '../api/job-editor-queries.ts';
import { useBuildings, useFloors } from '../../../lib/site-queries.ts';
import { useSaveJob } from '../api/job-editor-save.ts';
import { FIELD_ORDER, applyEditorChange, toJobInput, validateJobEditor } from './job-editor-form.ts';
import type { EditorChange, EditorField, JobEditorValues } from './job-editor-form.ts';
import { JobEditorRooms, ROOM_SELECT_ID } from './job-editor-rooms.tsx';
import { useScrollLock } from './job-editor-scroll-lock.ts';
import { EditorSelect } from '../../../components/select-field.tsx';
import './job-editor.css';
import type { Choice } from '../../../components/select-field.tsx';

const FIELD_IDS: Record<EditorField, string> = {
  name: 'job-name',
  buildingId: 'job-building',
  floorId: 'job-floor',
  robotId: 'job-robot',
  date: 'job-date',
  hours: 'job-hours',
  minutes: 'job-minutes',
  rooms: ROOM_SELECT_ID,
};

type Cascade = 'building' | 'floor' | 'robot';

/** Behaviour §5: hours 0–23, minutes 0–59. */
const CLOCK_FIELDS = [
  { name: 'hours', max: 23 },
  { name: 'minutes', max: 59 },
] as const;

/** Behaviour §4: a sole building, floor or robot is chosen for the user. */
const soleChoice = (choices: readonly Choice[] | undefined): string => (choices?.length === 1 ? (choices[0]?.value ?? '') : '');

/**
 * Why the robot cannot start the job now, naming the robot, by the start's refusal code; another refusal says its
 * own reason (errorKey), else `other`.
 */
const NOT_STARTED_KEYS: Partial<Record<string, ParseKeys>> = {
  [CommandRefusal.robotBusy]: 'jobEditor.notStarted.robotBusy',
  [CommandRefusal.robotOffline]: 'jobEditor.notStarted.robotOffline',
  [CommandRefusal.robotNotAutonomous]: 'jobEditor.notStarted.robotNotAutonomous',
};

export interface JobEditorProps {
  /** The job being edited; null creates a new one. */
  jobId: string | null;
  initial: JobEditorValues;
}

export const JobEditor = ({ jobId, initial }: JobEditorProps) => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const navigate = useNavigate();
  // Cancel and Save return to the list's page and filters the editor was opened from.
  const list = useListReturn(paths.jobs.path);
  const save = useSaveJob();
  const scrolling = useScrollLock();
  const [values, setValues] = useState(initial);
  const [submitted, setSubmitted] = useState(false);
  const [confirming, setConfirming] = useState(false);
  /** Why the robot could not start the job now: shown beside the kept form, so the user can schedule it instead. */
  const [notStarted, setNotStarted] = useState<string | null>(null);
  const [focused, setFocused] = useState<Cascade | null>(null);
  const change = (next: EditorChange) => {
    setValues((previous) => applyEditorChange(previous, next));
  };

  const buildings = useBuildings();
  const buildingChoices = buildings.data?.map((building) => ({ value: building.building_id, label: building.building_name }));
  const buildingId = values.buildingId || soleChoice(buildingChoices);
  const floors = useFloors(buildingId === '' ? null : buildingId, buildingId !== '');
  const floorChoices = buildingId ? floors.data?.map((floor) => ({ value: floor.floor_id, label: floor.floor_name })) : undefined;
  const floorId = values.floorId || soleChoice(floorChoices);
  const robots = useEditorFloorRobots(floorId);
  // An offline robot may still take a job scheduled for later, so it stays a choice, named as offline.
  const robotChoices = floorId
    ? robots.data?.map((robot) => ({ value: robot.robot_id, label: robot.offline ? t('jobEditor.robotOffline', { name: robot.name }) : robot.name }))
    : undefined;
  const robotId = values.robotId || soleChoice(robotChoices);
  const effective: JobEditorValues = { ...values, buildingId, floorId, robotId };

  const errors = submitted ? validateJobEditor(effective, timezone) : {};
  const message = (field: EditorField) => {
    const key = errors[field];
    return key ? t(key) : undefined;
  };

  const busy = save.isPending || save.isSuccess;
  // Behaviour §4: the cascade is fixed once rooms are added (they belong to the floor), and a saved job keeps its
  // robot (PUT /jobs/jobs/{id} carries none), so its building and floor stay too.
  const cascadeFixed = values.rooms.length > 0 || jobId !== null || busy;
  // Behaviour §4: each select also waits for its parent; while the page scrolls all are locked but the focused one.
  const cascade = [
    { select: 'building', field: 'buildingId', label: 'jobEditor.building', value: buildingId, choices: buildingChoices, query: buildings, parentMissing: false },
    { select: 'floor', field: 'floorId', label: 'jobEditor.floor', value: floorId, choices: floorChoices, query: floors, parentMissing: buildingId === '' },
    { select: 'robot', field: 'robotId', label: 'jobEditor.robot', value: robotId, choices: robotChoices, query: robots, parentMissing: floorId === '' },
  ] as const;

  const persist = () => {
    const input = toJobInput(effective, timezone);
    setNotStarted(null);
    save.mutate(
      { jobId, robotId, input },
      {
        onSuccess: (job) => {
          toast.success(t(input.start_now ? 'jobControls.startSuccess' : 'jobEditor.saved'));
          const focus: JobFocusState = { expandedJobId: job.job_id };
          void navigate(list, { state: focus });
        },
        onError: (error) => {
          setConfirming(false);
          const code = isApiRequestError(error) ? error.code : null;
          // A refused start now saved nothing: the reason stays beside the form, which keeps what the user entered.
          if (input.start_now && isApiRequestError(error) && error.status === 409 && code !== ErrorCode.jobRunning) {
            const robot = robots.data?.find((candidate) => candidate.robot_id === robotId)?.name ?? robotId;
            setNotStarted(t((code === null ? undefined : NOT_STARTED_KEYS[code]) ?? errorKey(error) ?? 'jobEditor.notStarted.other', { robot }));
            return;
          }
          toast.error(errorMessage(t, error, 'jobEditor.saveFailed'));
        },
      },
    );
  };

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setSubmitted(true);
    const found = validateJobEditor(effective, timezone);
    const first = FIELD_ORDER.find((field) => found[field]);
    if (first) {
      document.getElementById(FIELD_IDS[first])?.focus();
      return;
    }
    // Behaviour §4: "Start now" asks for confirmation before the job is created and started.
    if (values.startNow) setConfirming(true);
    else persist();
  };

  const field = (name: 'name' | 'notes' | 'date' | 'hours' | 'minutes') => (event: { target: { value: string } }) => {
    change({ type: 'field', field: name, value: event.target.value });
  };

  const invalid = (name: EditorField) => {
    const text = message(name);
    return {
      isInvalid: Boolean(text),
      'aria-invalid': Boolean(text),
      'aria-describedby': text ? `${FIELD_IDS[name]}-error` : undefined,
    };
  };

  const feedback = (name: EditorField) => (
    <Form.Control.Feedback type="invalid" id={`${FIELD_IDS[name]}-error`}>
      {message(name)}
    </Form.Control.Feedback>
  );

  return (
    <>
      <Form noValidate onSubmit={submit} className="job-editor">
        <Form.Check
          type="switch"
          id="job-start-now"
          className="mb-3"
          label={t('jobEditor.startImmediately')}
          checked={values.startNow}
          disabled={busy}
          onChange={(event) => {
            change({ type: 'startNow', value: event.target.checked });
          }}
        />
        <Form.Group className="mb-3" controlId={FIELD_IDS.name}>
          <Form.Label>{t('jobEditor.name')}</Form.Label>
          <Form.Control
            value={values.name}
            onChange={field('name')}
            maxLength={JOB_NAME_MAX}
            disabled={busy}
            autoComplete="off"
            {...invalid('name')}
          />
          {feedback('name')}
        </Form.Group>
        <Form.Group className="mb-3" controlId="job-notes">
          <Form.Label>{t('jobEditor.notes')}</Form.Label>
          <Form.Control as="textarea" rows={3} value={values.notes} onChange={field('notes')} maxLength={JOB_NOTES_MAX} disabled={busy} />
        </Form.Group>
        <div className="row g-3 mb-3">
          {cascade.map((level) => (
            <div className="col-md-4" key={level.select}>
              <EditorSelect
                id={FIELD_IDS[level.field]}
                label={t(level.label)}
                value={level.value}
                choices={level.choices}
                loading={!level.parentMissing && level.query.isPending}
                failed={level.query.isError}
                emptyText={level.select === 'robot' ? t('jobEditor.noRobots') : undefined}
                error={message(level.field)}
                disabled={cascadeFixed || level.parentMissing || (scrolling && focused !== level.select)}
                onChange={(value) => {
                  change({ type: level.select, value });
                }}
                onFocusChange={(isFocused) => {
                  setFocused(isFocused ? level.select : null);
                }}
              />
            </div>
          ))}
          {jobId === null ? null : <p className="form-text mt-1 mb-0">{t('jobEditor.robotFixed')}</p>}
        </div>
        {values.startNow ? null : (
          <fieldset className="mb-3">
            <legend className="h5">{t('jobEditor.startTime')}</legend>
            <div className="row g-3">
              <Form.Group className="col-sm-6" controlId={FIELD_IDS.date}>
                <Form.Label>{t('jobEditor.date')}</Form.Label>
                <Form.Control type="date" value={values.date} onChange={field('date')} disabled={busy} {...invalid('date')} />
                {feedback('date')}
              </Form.Group>
              {CLOCK_FIELDS.map(({ name, max }) => (
                <Form.Group className="col-6 col-sm-3" controlId={FIELD_IDS[name]} key={name}>
                  <Form.Label>{t(`jobEditor.${name}`)}</Form.Label>
                  <Form.Control
                    type="number"
                    inputMode="numeric"
                    min={0}
                    max={max}
                    step={1}
                    value={values[name]}
                    onChange={field(name)}
                    disabled={busy}
                    {...invalid(name)}
                  />
                  {feedback(name)}
                </Form.Group>
              ))}
            </div>
            <p className="form-text mb-0">{t('jobEditor.timezoneHint', { timezone })}</p>
          </fieldset>
        )}
        <JobEditorRooms floorId={floorId} rooms={values.rooms} error={message('rooms')} disabled={busy} onChange={change} />
        {notStarted === null ? null : (
          <Alert variant="danger" role="alert" data-testid="job-not-started">
            <p className="mb-1 fw-semibold">{notStarted}</p>
            <p className="mb-0">{t('jobEditor.notStarted.nothingSaved')}</p>
          </Alert>
        )}
        <div className="d-flex flex-wrap gap-2">
          <Button type="submit" id="job-submit" variant="primary" disabled={busy}>
            {busy ? <Spinner size="sm" /> : null} {t(values.startNow ? 'jobEditor.startNow' : 'jobEditor.save')}
          </Button>
          <Link id="job-cancel" className="btn btn-outline-secondary" to={list}>
            {t('jobEditor.cancel')}
          </Link>
        </div>
      </Form>
      <ConfirmDialog
        show={confirming}
        title={t('jobEditor.confirmStart')}
        body={effective.name.trim()}
        confirmLabel={t('jobEditor.startNow')}
        busy={save.isPending}
        onConfirm={persist}
        onCancel={() => {
          setConfirming(false);
        }}
      />
    </>
  );
};
