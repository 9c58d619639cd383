import { DeliveryRefusal } from '@uvd/contracts';
import type { TFunction } from 'i18next';
import type { ParseKeys } from 'i18next';
import { z } from 'zod';
import { isApiRequestError } from '../../../lib/api-error.ts';

/** The deliveries backend's refusals (409), each told in the user's language with what to do next. */
const REFUSAL_KEYS: Partial<Record<string, ParseKeys>> = {
  [DeliveryRefusal.deliveryState]: 'deliveries.refusals.delivery_state',
  [DeliveryRefusal.deliveryFinished]: 'deliveries.refusals.delivery_finished',
  [DeliveryRefusal.notWaiting]: 'deliveries.refusals.handoff_not_waiting',
  [DeliveryRefusal.handoffLocked]: 'deliveries.refusals.handoff_locked',
  [DeliveryRefusal.robotOffline]: 'deliveries.refusals.robot_offline',
  [DeliveryRefusal.wrongRobotKind]: 'deliveries.refusals.robot_kind',
};

const WrongPinDetails = z.object({ attempts_left: z.number().int().min(0) });

/** How many PIN attempts a wrong-PIN refusal leaves, or null for any other error. */
export const attemptsLeftOf = (error: unknown): number | null => {
  if (!isApiRequestError(error) || error.code !== DeliveryRefusal.wrongPin) return null;
  const details = WrongPinDetails.safeParse(error.details);
  return details.success ? details.data.attempts_left : null;
};

/** The text of a delivery call's failure: a refusal the user can act on, else `fallback`. */
export const deliveryErrorText = (t: TFunction, error: unknown, fallback: ParseKeys): string => {
  const attempts = attemptsLeftOf(error);
  if (attempts !== null) return attempts === 0 ? t('deliveries.refusals.handoff_locked') : t('deliveries.refusals.handoff_wrong_pin', { attempts });
  if (isApiRequestError(error) && error.code === DeliveryRefusal.wrongPin) return t('deliveries.refusals.handoff_wrong_pin_unknown');
  const key = isApiRequestError(error) && error.code !== null ? REFUSAL_KEYS[error.code] : undefined;
  return t(key ?? fallback);
};
