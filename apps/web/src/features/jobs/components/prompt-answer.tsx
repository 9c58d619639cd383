import { useState } from 'react';
import { Button } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { ActionButtonText } from '@uvd/contracts';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { errorMessage, PROMPT_ANSWER_KEYS } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { useActionDecision } from '../api/job-commands.ts';

/** The prompts whose Confirm lets the robot turn UV-C on: the room must be empty. */
const STARTS_UV: ReadonlySet<ActionButtonText> = new Set(['wait_to_enter', 'wait_to_disinfect']);

export interface PromptToAnswer {
  action_id: string;
  job_id: string;
  button: { text: ActionButtonText };
  robot_name: string;
  room_name: string | null;
}

/**
 * Confirm and Skip of a robot's prompt (the banner on every screen, a job's row). Confirm only opens a dialog that
 * names the room and the robot and says what the robot will do, so a stray tap (a banner that just appeared under
 * the finger) cannot send it; Skip is sent at once, since it never turns a lamp on. Both are at least 44 px.
 * `label` names the prompt for screen readers; `onSent` is told once the server accepted the answer.
 */
export const PromptAnswer = ({ prompt, label, onSent }: { prompt: PromptToAnswer; label: string; onSent?: (confirm: boolean) => void }) => {
  const { t } = useTranslation();
  const decision = useActionDecision();
  const [sent, setSent] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const robot = prompt.robot_name;
  const room = prompt.room_name;
  const startsUv = STARTS_UV.has(prompt.button.text);

  const answer = (confirm: boolean) => {
    setSent(true);
    // The promise, not mutate's callbacks: the accepted answer takes the prompt off the list at once, which
    // unmounts this component before mutate would call back, and the banner must still learn it was sent.
    decision.mutateAsync({ actionId: prompt.action_id, jobId: prompt.job_id, confirm }).then(
      (ok) => {
        setConfirming(false);
        if (ok) onSent?.(confirm);
        else {
          setSent(false);
          toast.error(t('promptAnswer.failed'));
        }
      },
      (error: unknown) => {
        setConfirming(false);
        setSent(false);
        // 409: answered elsewhere, or the robot no longer asks; the stream takes it away.
        toast.error(errorMessage(t, error, 'promptAnswer.failed', PROMPT_ANSWER_KEYS));
      },
    );
  };

  const body = startsUv
    ? room
      ? t('promptAnswer.roomEmptyBody', { room, robot })
      : t('promptAnswer.roomEmptyBodyNoRoom', { robot })
    : t('promptAnswer.confirmBody', { robot, question: t(`actions.${prompt.button.text}`) });
  return (
    <>
      <Button
        className="prompt-answer-button"
        disabled={sent}
        aria-label={`${t('actions.confirm')}: ${label}`}
        aria-haspopup="dialog"
        onClick={() => {
          setConfirming(true);
        }}
      >
        {t('actions.confirm')}
      </Button>
      <Button
        className="prompt-answer-button"
        variant="outline-secondary"
        disabled={sent}
        aria-label={`${t('actions.skip')}: ${label}`}
        onClick={() => {
          answer(false);
        }}
      >
        {t('actions.skip')}
      </Button>
      <ConfirmDialog
        show={confirming}
        className="prompt-answer-dialog"
        title={startsUv ? (room ? t('promptAnswer.roomEmptyTitle', { room }) : t('promptAnswer.roomEmptyTitleNoRoom')) : label}
        body={body}
        confirmLabel={startsUv ? t('promptAnswer.roomIsEmpty') : t('actions.confirm')}
        variant={startsUv ? 'danger' : 'primary'}
        busy={decision.isPending}
        onConfirm={() => {
          answer(true);
        }}
        onCancel={() => {
          setConfirming(false);
        }}
      />
    </>
  );
};
