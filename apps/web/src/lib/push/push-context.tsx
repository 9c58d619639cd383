import { createContext, useContext } from 'react';
import type { ReactNode } from 'react';
import type { PushDevice } from './push-device.ts';

/** What the console does with pushes on this device, once per page (app/services.ts). */
export interface PushServices {
  /** This device's push registration: Web Push or the mobile shell's native push, loaded on first use. */
  device: () => Promise<PushDevice>;
  /** Shows a console path a push is about (a tap on a notification, a toast's link). */
  open: (path: string) => void;
  /**
   * The router's way to `open` (app/push-session.tsx); a path opened before the router is there (a tap that
   * started the mobile app) waits for it. Returns the unsetter.
   */
  setOpener: (open: (path: string) => void) => () => void;
}

/** `open` through whichever opener is set, keeping the last path asked for until one is. */
export const createPushOpener = (): Pick<PushServices, 'open' | 'setOpener'> => {
  let opener: ((path: string) => void) | null = null;
  let pending: string | null = null;
  return {
    open: (path) => {
      if (opener) opener(path);
      else pending = path;
    },
    setOpener: (open) => {
      opener = open;
      if (pending !== null) {
        const path = pending;
        pending = null;
        open(path);
      }
      return () => {
        if (opener === open) opener = null;
      };
    },
  };
};

const PushContext = createContext<PushServices | null>(null);

export const PushProvider = ({ push, children }: { push: PushServices; children: ReactNode }) => (
  <PushContext value={push}>{children}</PushContext>
);

export const usePush = (): PushServices => {
  const push = useContext(PushContext);
  if (!push) throw new Error('usePush needs a PushProvider');
  return push;
};
