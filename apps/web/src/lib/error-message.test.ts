import { CommandRefusal, ErrorCode } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import { createI18n } from './i18n.ts';
import { ApiRequestError } from './api-error.ts';
import { errorMessage, PROMPT_ANSWER_KEYS } from './error-message.ts';

const refusal = (code: string, status = 409) => new ApiRequestError({ kind: 'status', status, code, message: `server: ${code}` });

describe('the one place an API error becomes what the user reads', () => {
  it('names every refusal of a command with what to do next, in en, fi and se, instead of the fallback', async () => {
    const [en, fi, se] = await Promise.all((['en', 'fi', 'se'] as const).map((language) => createI18n({ language })));
    if (!en || !fi || !se) throw new Error('no i18n');
    const fallback = 'jobControls.startFail';
    // A reused Idempotency-Key is the console's own mistake (each click makes a new one): nothing for the user to do.
    for (const code of Object.values(CommandRefusal).filter((code) => code !== CommandRefusal.keyReused)) {
      for (const i18n of [en, fi, se]) {
        const text = errorMessage(i18n.t, refusal(code), fallback);
        expect(text, `${code} in ${i18n.language}`).not.toBe(i18n.t(fallback));
        expect(text).not.toMatch(/refusals\.|errors\./);
      }
    }
    expect(errorMessage(en.t, refusal(CommandRefusal.robotBusy), fallback)).toBe(
      'The robot is running another job. Stop that job first, or schedule this one for later.',
    );
    expect(errorMessage(fi.t, refusal(CommandRefusal.robotBusy), fallback)).toBe(fi.t('robotControls.refusals.robot_busy'));
    expect(errorMessage(en.t, refusal(ErrorCode.rateLimited, 429), fallback)).toBe('Too many attempts in a short time. Wait a minute, then try again.');
  });

  it('says the network or the time when no reply came, and falls back for what it does not know', async () => {
    const { t } = await createI18n({ language: 'en' });
    expect(errorMessage(t, new ApiRequestError({ kind: 'network', message: 'Failed to fetch' }), 'jobControls.pauseFail')).toMatch(/^No connection to the server/);
    expect(errorMessage(t, new ApiRequestError({ kind: 'timeout', message: 'timed out' }), 'jobControls.pauseFail')).toMatch(/did not answer in time/);
    expect(errorMessage(t, refusal(ErrorCode.internal, 500), 'jobControls.pauseFail')).toBe(t('jobControls.pauseFail'));
    expect(errorMessage(t, new Error('boom'), 'jobControls.pauseFail')).toBe(t('jobControls.pauseFail'));
  });

  it("tells a prompt's answer that came too late that it was answered elsewhere", async () => {
    const { t } = await createI18n({ language: 'en' });
    expect(errorMessage(t, refusal(CommandRefusal.jobState), 'promptAnswer.failed', PROMPT_ANSWER_KEYS)).toBe(
      'This prompt was already answered, or the robot no longer asks.',
    );
    expect(errorMessage(t, refusal(CommandRefusal.robotOffline), 'promptAnswer.failed', PROMPT_ANSWER_KEYS)).toBe(t('robotControls.refusals.robot_offline'));
  });
});
