/**
 * The route table of behaviour §2 in one place: `path` is what the router matches, `getHref` builds a link.
 * Screens link through this map, never through string literals, so a renamed route is one edit.
 */
const withQuery = (path: string, query: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
};

export type AdminTab = 'users' | 'groups' | 'robots' | 'contacts' | 'audit' | 'webhooks';
export type AssignTab = 'users' | 'locations' | 'robots';

export const paths = {
  home: { path: '/', getHref: () => '/' },
  jobs: {
    path: '/jobs',
    getHref: (query: { robot?: string } = {}) => withQuery('/jobs', query),
  },
  /** Behaviour §2: opens the jobs list with that job expanded; the literal `no_job` is skipped. */
  job: { path: '/job/:jobId?', getHref: (jobId: string) => `/job/${encodeURIComponent(jobId)}` },
  jobCreate: { path: '/jobs/create', getHref: () => '/jobs/create' },
  jobEdit: { path: '/jobs/edit/:jobid', getHref: (jobId: string) => `/jobs/edit/${encodeURIComponent(jobId)}` },
  map: {
    path: '/map',
    getHref: (query: { job?: string; robot?: string; show_trajectory?: boolean } = {}) =>
      withQuery('/map', {
        job: query.job,
        robot: query.robot,
        show_trajectory: query.show_trajectory === undefined ? undefined : String(query.show_trajectory),
      }),
  },
  profile: { path: '/profile', getHref: () => '/profile' },
  admin: { path: '/admin', getHref: (tab: AdminTab = 'users') => `/admin#${tab}` },
  adminGroup: {
    path: '/admin/groups/:groupid',
    getHref: (groupId: string, tab: AssignTab = 'users') => `/admin/groups/${encodeURIComponent(groupId)}#${tab}`,
  },
  signIn: {
    path: '/auth/:organization?',
    getHref: (organization?: string) => (organization ? `/auth/${encodeURIComponent(organization)}` : '/auth'),
  },
  restorePassword: { path: '/auth/restore-my-password', getHref: () => '/auth/restore-my-password' },
  signUp: { path: '/auth/sign-up', getHref: () => '/auth/sign-up' },
  /** The link of a password reset mail: `?token=…`. */
  resetPassword: { path: '/auth/reset-password', getHref: () => '/auth/reset-password' },
  /** A signed-in user whose password was given to them (by an admin, or admin:create) chooses their own here first. */
  changePassword: { path: '/auth/change-password', getHref: () => '/auth/change-password' },
  robots: { path: '/robots', getHref: () => '/robots' },
  settings: { path: '/settings', getHref: () => '/settings' },
  logs: { path: '/logs', getHref: (query: { robot?: string; startDate?: string } = {}) => withQuery('/logs', query) },
  reports: { path: '/reports', getHref: () => '/reports' },
  deliveries: { path: '/deliveries', getHref: () => '/deliveries' },
  delivery: { path: '/deliveries/:id', getHref: (id: string) => `/deliveries/${encodeURIComponent(id)}` },
  deliveryCreate: { path: '/deliveries/create', getHref: () => '/deliveries/create' },
} as const;
