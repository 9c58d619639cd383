import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Job, WaitingAction } from '@uvd/contracts';
import { paths } from '../../../config/paths.ts';
import { useApi, useRuntimeConfig } from '../../../lib/api-context.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { playPromptSound, promptSoundOn } from '../../../lib/prompt-sound.ts';
import { toast } from '../../../lib/toast.ts';
import { useJobAction, useWaitingActions } from '../api/jobs-query.ts';
import { jobHubsFor } from '../live/use-job-streams.ts';
import { PromptAnswer } from './prompt-answer.tsx';
import './prompt-banner.css';

/** Prompts shown in full; more are counted, and the jobs list holds them all. */
const SHOWN = 3;

/**
 * The prompts robots are waiting on, over the bottom of every signed-in screen, each naming its robot and room and
 * answerable here (Confirm through a dialog naming room and robot, Skip; one Idempotency-Key per answer as in the
 * job's row), then what became of the answer: sent, and received by the robot. Kept live by the actions stream of
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
  const [answers, setAnswers] = useState<SentAnswer[]>([]);
  const forget = useCallback((actionId: string) => {
    setAnswers((previous) => previous.filter((candidate) => candidate.actionId !== actionId));
  }, []);
  // A beep for each prompt first seen on this page, not for those already waiting when it opened.
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!waiting.data) return;
    const ids = waiting.data.payload.map((prompt) => prompt.action_id);
    const known = seen.current;
    seen.current = new Set([...(known ?? []), ...ids]);
    if (known && ids.some((id) => !known.has(id)) && promptSoundOn(user.sub)) playPromptSound();
  }, [waiting.data, user.sub]);

  if (prompts.length === 0 && answers.length === 0) return null;
  const more = prompts.length - SHOWN;
  return (
    <PromptRegion>
      {prompts.length > 0 ? (
        <>
          <h2 id="prompt-banner-heading" className="h6 mb-2">
            {t('promptBanner.heading', { count: prompts.length })}
          </h2>
          <ul className="list-unstyled mb-0 d-grid gap-2">
            {prompts.slice(0, SHOWN).map((prompt) => (
              <PromptItem
                key={prompt.action_id}
                prompt={prompt}
                onSent={() => {
                  setAnswers((previous) => [...previous, { actionId: prompt.action_id, jobId: prompt.job_id, robot: prompt.robot_name }]);
                }}
              />
            ))}
          </ul>
          {more > 0 ? (
            <p className="mb-0 mt-2">
              <Button
                variant="link"
                className="p-0 align-baseline prompt-answer-button"
                onClick={() => {
                  void navigate(paths.jobs.getHref());
                }}
              >
                {t('promptBanner.more', { count: more })}
              </Button>
            </p>
          ) : null}
        </>
      ) : null}
      <div role="status" className={answers.length > 0 && prompts.length > 0 ? 'mt-2' : undefined}>
        {answers.map((sent) => (
          <SentAnswerLine key={sent.actionId} sent={sent} onDone={forget} />
        ))}
      </div>
    </PromptRegion>
  );
};

/** How long "… received the answer" stays once the robot confirmed it. */
const RECEIVED_SHOWN_MS = 8000;

interface SentAnswer {
  actionId: string;
  jobId: string;
  robot: string;
}

/**
 * The banner is fixed to the bottom of the viewport, over the page rather than in its flow: appearing, growing or
 * going, it never moves what is under the user's finger. The page gets as much room at its end, so nothing stays
 * hidden under it.
 */
const PromptRegion = ({ children }: { children: ReactNode }) => {
  const region = useRef<HTMLElement>(null);
  useEffect(() => {
    const element = region.current;
    if (!element || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(() => {
      document.body.style.paddingBottom = `${String(element.offsetHeight)}px`;
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      document.body.style.paddingBottom = '';
    };
  }, []);
  return (
    <section ref={region} className="prompt-banner" aria-labelledby="prompt-banner-heading" data-testid="prompt-banner">
      <div className="container-lg">
        <div className="alert alert-warning mb-0 shadow">{children}</div>
      </div>
    </section>
  );
};

/**
 * "Answer sent to UVD-2" once the server accepted the answer, then "UVD-2 received the answer" once the robot no
 * longer asks (its prompt resolved on the actions stream), which then fades after a while.
 */
const SentAnswerLine = ({ sent, onDone }: { sent: SentAnswer; onDone: (actionId: string) => void }) => {
  const { t } = useTranslation();
  const action = useJobAction(sent.jobId, true);
  const received = action.data === null || (action.data !== undefined && action.data.action_id !== sent.actionId);
  useEffect(() => {
    if (!received) return undefined;
    const timer = setTimeout(() => {
      onDone(sent.actionId);
    }, RECEIVED_SHOWN_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [received, onDone, sent.actionId]);
  return (
    <p className="mb-0" data-testid="prompt-answer-sent">
      {received ? t('promptAnswer.received', { robot: sent.robot }) : t('promptAnswer.sent', { robot: sent.robot })}
    </p>
  );
};

const PromptItem = ({ prompt, onSent }: { prompt: WaitingAction; onSent: () => void }) => {
  const { t } = useTranslation();
  const question = t(`actions.${prompt.button.text}`);
  const text = prompt.room_name
    ? t('promptBanner.promptInRoom', { robot: prompt.robot_name, room: prompt.room_name, question })
    : t('promptBanner.prompt', { robot: prompt.robot_name, question });
  return (
    <li className="d-flex flex-wrap align-items-center gap-2" data-testid="prompt-banner-item">
      <span role="alert" className="me-auto">
        {text} <span className="text-body-secondary small">({prompt.job_name})</span>
      </span>
      <PromptAnswer prompt={prompt} label={text} onSent={onSent} />
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
