import { z } from 'zod';

/** Behaviour §1 roles. */
export const Role = z.enum(['done-teleoperator', 'done-admin', 'done-superadmin']);
export type Role = z.infer<typeof Role>;
export const RESTRICTED_ROLES = ['done-admin', 'done-superadmin'] as const satisfies readonly Role[];
export const isRestricted = (roles: readonly string[]): boolean =>
  roles.some((role) => (RESTRICTED_ROLES as readonly string[]).includes(role));
