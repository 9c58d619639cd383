import type { RobotStatus } from '@uvd/contracts';
import type { TFunction } from 'i18next';

/** A robot's status (one of the contract's RobotStatus) in the interface language. */
export const robotStatusLabel = (t: TFunction, status: RobotStatus): string => t(`robotStatus.${status}`);
