import { useEffect, useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { PushMessage } from '@uvd/contracts';
import { useActionDecision } from '../features/jobs/api/job-commands.ts';
import { useWaitingActions } from '../features/jobs/api/jobs-query.ts';
import { errorKey, PROMPT_ANSWER_KEYS } from '../lib/error-message.ts';
import { consolePathOf, promptOf } from '../lib/push/push-message.ts';
import { toast } from '../lib/toast.ts';

interface PushToastProps {
  message: PushMessage;
  /** Opens a console path in this window (the router's navigate). */
  open: (path: string) => void;
  close: () => void;
}

/** A push in the console: its title and text, a link to what it is about, and a prompt's answers. */
const PushToast = ({ message, open, close }: PushToastProps) => {
  const { t } = useTranslation();
  const decision = useActionDecision();
  const prompt = promptOf(message);
  const path = consolePathOf(message);
  const waiting = useWaitingActions(prompt !== null);
  const [shownAt] = useState(Date.now);
  const [seen, setSeen] = useState(false);
  const listed = prompt ? waiting.data?.payload.some((action) => action.action_id === prompt.actionId) : undefined;
  // A prompt answered anywhere else (another tab, the banner, the robot) leaves the waiting prompts, which the
  // actions stream keeps current: its toast goes with it rather than offer answers that no longer apply. A list
  // fetched before the push arrived may not hold it yet: it counts once seen, or once fetched after the toast.
  if (listed && !seen) setSeen(true);
  const settled = listed === false && (seen || waiting.dataUpdatedAt > shownAt);
  useEffect(() => {
    if (settled) close();
  }, [settled, close]);

  const answer = (actionId: string, confirm: boolean) => {
    decision.mutate(
      { actionId, jobId: message.related_id, confirm },
      {
        onSuccess: (ok) => {
          if (ok) close();
          else toast.error(t('promptAnswer.failed'));
        },
        onError: (error) => {
          // 409: answered elsewhere, or the robot no longer asks; 404: gone with its job.
          const key = errorKey(error, PROMPT_ANSWER_KEYS);
          toast.error(t(key ?? 'promptAnswer.failed'));
          if (key === 'push.alreadyAnswered') close();
        },
      },
    );
  };

  return (
    <div className="push-toast" data-testid="push-toast">
      <p className="fw-bold mb-1">{message.title}</p>
      <p className="mb-2">{message.body}</p>
      <div className="d-flex flex-wrap align-items-center gap-2">
        {prompt?.choices.map(({ choice }) => (
          <Button
            key={choice}
            size="sm"
            variant={choice === 'confirm' ? 'primary' : 'outline-secondary'}
            disabled={decision.isPending}
            onClick={() => {
              answer(prompt.actionId, choice === 'confirm');
            }}
          >
            {t(choice === 'confirm' ? 'actions.confirm' : 'actions.skip')}
          </Button>
        ))}
        <a
          href={path}
          className="ms-auto"
          onClick={(event) => {
            event.preventDefault();
            open(path);
            close();
          }}
        >
          {t('push.open')}
        </a>
      </div>
    </div>
  );
};

export const showPushToast = (message: PushMessage, open: (path: string) => void): void => {
  toast.push(message.push_id, (close) => <PushToast message={message} open={open} close={close} />);
};
