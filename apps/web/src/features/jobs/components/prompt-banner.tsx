import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Job, WaitingAction } from '@uvd/contracts';
import { paths } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useApi, useRuntimeConfig } from '../../../lib/api-context.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { playPromptSound, promptSoundOn } from '../../../lib/prompt-sound.ts';
import { toast } from '../../../lib/toast.ts';
import { useActionDecision } from '../api/job-commands.ts';
import { useWaitingActions } from '../api/jobs-query.ts';
import { jobHubsFor } from '../live/use-job-streams.ts';

/** Prompts shown in full; more are counted, and the jobs list holds them all. */
const SHOWN = 3;

/**
 * The prompts robots are waiting on, above every signed-in screen, each naming its robot and room and answerable
 * here (Confirm / Skip, one Idempotency-Key per click as in the job's row). Kept live by the actions stream of
 * every job the user sees; a prompt answered anywhere (here, a row, a push, another operator) leaves at once. A new
 * prompt is announced by screen readers (role="alert") and, if this user turned it on in Settings, with a beep.
 * It also raises the toast of a job that ends while a jobs list shows it, so the job does not just vanish.
 */
export const PromptBanner = () => {
  const { t } = useTranslation();
  const { variant } = useRuntimeConfig();
  const user = useSessionUser();
  const queryClient = useQueryClient();
  const api = useApi();
  const navigate = useNavigate();
  const waiting = useWaitingActions();
  const disinfection = variant !== 'logistics';

  useEffect(() => {
    if (!disinfection) return undefined;
    const hubs = jobHubsFor(queryClient, api);
    const release = hubs.actions.subscribe([]);
    const onFinished = (job: Job) => {
      toast.push(`job-finished-${job.job_id}`, (close) => (
        <JobFinishedToast
          job={job}
          onOpenLog={() => {
            close();
            void navigate(paths.logs.getHref({ robot: job.robot_id }));
          }}
        />
      ));
    };
    hubs.finished.add(onFinished);
    return () => {
      release();
      hubs.finished.delete(onFinished);
    };
  }, [queryClient, api, navigate, disinfection]);

  const prompts = disinfection ? (waiting.data?.payload ?? []) : [];
  // A beep for each prompt first seen on this page, not for those already waiting when it opened.
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!waiting.data) return;
    const ids = waiting.data.payload.map((prompt) => prompt.action_id);
    const known = seen.current;
    seen.current = new Set([...(known ?? []), ...ids]);
    if (known && ids.some((id) => !known.has(id)) && promptSoundOn(user.sub)) playPromptSound();
  }, [waiting.data, user.sub]);

  if (prompts.length === 0) return null;
  const more = prompts.length - SHOWN;
  return (
    <section className="prompt-banner alert alert-warning mb-3" aria-labelledby="prompt-banner-heading" data-testid="prompt-banner">
      <h2 id="prompt-banner-heading" className="h6 mb-2">
        {t('promptBanner.heading', { count: prompts.length })}
      </h2>
      <ul className="list-unstyled mb-0 d-grid gap-2">
        {prompts.slice(0, SHOWN).map((prompt) => (
          <PromptItem key={prompt.action_id} prompt={prompt} />
        ))}
      </ul>
      {more > 0 ? (
        <p className="mb-0 mt-2">
          <Button
            variant="link"
            className="p-0 align-baseline"
            onClick={() => {
              void navigate(paths.jobs.getHref());
            }}
          >
            {t('promptBanner.more', { count: more })}
          </Button>
        </p>
      ) : null}
    </section>
  );
};

const PromptItem = ({ prompt }: { prompt: WaitingAction }) => {
  const { t } = useTranslation();
  const decision = useActionDecision();
  const [sent, setSent] = useState(false);
  const question = t(`actions.${prompt.button.text}`);
  const text = prompt.room_name
    ? t('promptBanner.promptInRoom', { robot: prompt.robot_name, room: prompt.room_name, question })
    : t('promptBanner.prompt', { robot: prompt.robot_name, question });
  const answer = (confirm: boolean) => {
    setSent(true);
    decision.mutate(
      { actionId: prompt.action_id, jobId: prompt.job_id, confirm },
      {
        onSuccess: (ok) => {
          if (!ok) {
            setSent(false);
            toast.error(t('common.genericError'));
          }
        },
        onError: (error) => {
          setSent(false);
          // 409: answered elsewhere, or the robot no longer asks; the stream takes it away.
          toast.error(t(isApiRequestError(error) && error.status === 409 ? 'push.alreadyAnswered' : 'common.genericError'));
        },
      },
    );
  };
  return (
    <li className="d-flex flex-wrap align-items-center gap-2" data-testid="prompt-banner-item">
      <span role="alert" className="me-auto">
        {text} <span className="text-body-secondary small">({prompt.job_name})</span>
      </span>
      <Button
        size="sm"
        disabled={sent}
        aria-label={`${t('actions.confirm')}: ${text}`}
        onClick={() => {
          answer(true);
        }}
      >
        {t('actions.confirm')}
      </Button>
      <Button
        size="sm"
        variant="outline-secondary"
        disabled={sent}
        aria-label={`${t('actions.skip')}: ${text}`}
        onClick={() => {
          answer(false);
        }}
      >
        {t('actions.skip')}
      </Button>
    </li>
  );
};

const JobFinishedToast = ({ job, onOpenLog }: { job: Job; onOpenLog: () => void }) => {
  const { t } = useTranslation();
  const progress = job.progress;
  return (
    <div data-testid="job-finished-toast">
      <p className="mb-1">
        {progress
          ? t('jobFinished.summary', { name: job.name, done: progress.rooms_disinfected, total: progress.rooms_total })
          : t('jobFinished.plain', { name: job.name })}
      </p>
      <Button size="sm" variant="link" className="p-0" onClick={onOpenLog}>
        {t('jobFinished.openLog')}
      </Button>
    </div>
  );
};
