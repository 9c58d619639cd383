import type { TFunction } from 'i18next';

/** The statuses the server derives from a robot's state (apps/server/src/robot-link/robot-fields.ts). */
const KNOWN_STATUSES = ['idle', 'driving', 'disinfecting', 'paused', 'charging', 'error'] as const;

/** A robot's status in the interface language; a status the console does not know shows as the robot sent it. */
export const robotStatusLabel = (t: TFunction, status: string): string => {
  const known = KNOWN_STATUSES.find((candidate) => candidate === status);
  return known === undefined ? status : t(`robotStatus.${known}`);
};
