import { LOCAL_KEYS, readUserChoice, saveUserChoice } from './storage.ts';

/** Whether this user asked for a sound when a robot waits for an answer (off unless they turned it on). */
export const promptSoundOn = (userId: string): boolean => readUserChoice(LOCAL_KEYS.promptSound, userId) === 'on';

export const savePromptSound = (userId: string, on: boolean): void => {
  saveUserChoice(LOCAL_KEYS.promptSound, userId, on ? 'on' : 'off');
};

type AudioContextClass = new () => AudioContext;
const audioContextClass = (): AudioContextClass | undefined =>
  typeof window === 'undefined' || typeof window.AudioContext !== 'function' ? undefined : window.AudioContext;

let context: AudioContext | undefined;

/**
 * Two short beeps made with Web Audio (no sound file to load). Browsers start audio only after the user has
 * interacted with the page; a beep they refuse is silent, which the banner's visible alert makes up for.
 */
export const playPromptSound = (): void => {
  const Context = audioContextClass();
  if (!Context) return;
  try {
    context ??= new Context();
    const audio = context;
    if (audio.state === 'suspended') void audio.resume().catch(() => undefined);
    for (const offset of [0, 0.25]) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = 'sine';
      oscillator.frequency.value = 880;
      const start = audio.currentTime + offset;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.3, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.18);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(start);
      oscillator.stop(start + 0.2);
    }
  } catch {
    // No audio device, or the browser refused: the banner still shows.
  }
};
