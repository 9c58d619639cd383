import { useState } from 'react';
import { Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { playPromptSound, promptSoundOn, savePromptSound } from '../../../lib/prompt-sound.ts';

/** The opt-in to a beep when a robot waits for an answer: per user, in this browser's local storage. */
export const PromptSoundSwitch = () => {
  const { t } = useTranslation();
  const { sub } = useSessionUser();
  const [on, setOn] = useState(() => promptSoundOn(sub));
  return (
    <div className="mt-3">
      <Form.Check
        type="switch"
        id="settings-prompt-sound-switch"
        role="switch"
        label={t('settings.promptSound')}
        checked={on}
        aria-describedby="settings-prompt-sound-help"
        onChange={(event) => {
          const next = event.target.checked;
          setOn(next);
          savePromptSound(sub, next);
          // Turned on with a click: the browser lets this first beep play, and the user hears what to expect.
          if (next) playPromptSound();
        }}
      />
      <Form.Text id="settings-prompt-sound-help">{t('settings.promptSoundHelp')}</Form.Text>
    </div>
  );
};
