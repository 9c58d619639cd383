import { isRestricted } from '@uvd/contracts';
import type { RuntimeConfig } from '../../config/runtime-config.ts';
import { paths } from '../../config/paths.ts';

export type NavKey = 'jobs' | 'robots' | 'profile' | 'admin' | 'map' | 'logs' | 'settings' | 'deliveries' | 'reports';

export interface NavItem {
  key: NavKey;
  href: string;
  /** Only for the restricted roles (behaviour §6: "the admin link needs a restricted role"). */
  restricted: boolean;
}

/** Behaviour §1: the disinfection app's links, in its order; logout is a button after them. */
const DISINFECTION: NavItem[] = [
  { key: 'jobs', href: paths.jobs.getHref(), restricted: false },
  { key: 'robots', href: paths.robots.getHref(), restricted: false },
  { key: 'profile', href: paths.profile.getHref(), restricted: false },
  { key: 'admin', href: paths.admin.getHref(), restricted: true },
  { key: 'map', href: paths.map.getHref(), restricted: false },
  { key: 'logs', href: paths.logs.getHref(), restricted: false },
  // Every signed-in user: the server keeps a teleoperator's reports to their groups.
  { key: 'reports', href: paths.reports.getHref(), restricted: false },
  { key: 'settings', href: paths.settings.getHref(), restricted: false },
];
/** Behaviour §1: "The logistics app shows only deliveries." */
const LOGISTICS: NavItem[] = [{ key: 'deliveries', href: paths.deliveries.getHref(), restricted: false }];

export const navItemsFor = (variant: RuntimeConfig['variant'], roles: readonly string[]): NavItem[] =>
  (variant === 'logistics' ? LOGISTICS : DISINFECTION).filter((item) => !item.restricted || isRestricted(roles));

/** The first screen after sign-in: behaviour §2 "/ redirects to the jobs list" (deliveries in the logistics app). */
export const homeHrefFor = (variant: RuntimeConfig['variant']): string =>
  variant === 'logistics' ? paths.deliveries.getHref() : paths.jobs.getHref();
