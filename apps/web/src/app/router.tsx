import { useMemo } from 'react';
import type { ComponentType } from 'react';
import { Navigate, RouterProvider, createBrowserRouter } from 'react-router';
import type { RouteObject } from 'react-router';
import { AuthenticatedOnly, RestrictedOnly, VisitorOnly } from '../components/guards.tsx';
import { AppLayout, VisitorLayout } from '../components/layout/app-layout.tsx';
import { homeHrefFor } from '../components/layout/nav-items.ts';
import { NotFound } from '../components/not-found.tsx';
import { RouteError } from '../components/route-error.tsx';
import { PageSpinner } from '../components/spinner.tsx';
import { paths } from '../config/paths.ts';
import { useRuntimeConfig } from '../lib/api-context.tsx';

/** Route-level code splitting: each screen is its own chunk, loaded when first visited. */
const screen =
  <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType) =>
  async () => ({ Component: pick(await load()) });

const HomeRedirect = () => {
  const { variant } = useRuntimeConfig();
  return <Navigate to={homeHrefFor(variant)} replace />;
};

/** Spec §2's route table. React Router ranks static segments first, so /auth/sign-up beats /auth/:organization?. */
export const createAppRoutes = (): RouteObject[] => [
  {
    path: '/',
    errorElement: <RouteError />,
    hydrateFallbackElement: <PageSpinner />,
    children: [
      {
        element: <VisitorOnly />,
        children: [
          {
            element: <VisitorLayout />,
            children: [
              { path: paths.signIn.path, lazy: screen(() => import('../features/auth/routes/sign-in.tsx'), (m) => m.SignInRoute) },
              {
                path: paths.restorePassword.path,
                lazy: screen(() => import('../features/auth/routes/restore-password.tsx'), (m) => m.RestorePasswordRoute),
              },
              { path: paths.signUp.path, lazy: screen(() => import('../features/auth/routes/sign-up.tsx'), (m) => m.SignUpRoute) },
            ],
          },
        ],
      },
      {
        element: <AuthenticatedOnly />,
        children: [
          {
            element: <AppLayout />,
            children: [
              { index: true, element: <HomeRedirect /> },
              { path: paths.job.path, lazy: screen(() => import('../features/jobs/routes/job-redirect.tsx'), (m) => m.JobRedirectRoute) },
              { path: paths.jobs.path, lazy: screen(() => import('../features/jobs/routes/jobs.tsx'), (m) => m.JobsRoute) },
              { path: paths.jobCreate.path, lazy: screen(() => import('../features/jobs/routes/job-create.tsx'), (m) => m.JobCreateRoute) },
              { path: paths.jobEdit.path, lazy: screen(() => import('../features/jobs/routes/job-edit.tsx'), (m) => m.JobEditRoute) },
              { path: paths.map.path, lazy: screen(() => import('../features/map/routes/map.tsx'), (m) => m.MapRoute) },
              { path: paths.profile.path, lazy: screen(() => import('../features/profile/routes/profile.tsx'), (m) => m.ProfileRoute) },
              { path: paths.robots.path, lazy: screen(() => import('../features/robots/routes/robots.tsx'), (m) => m.RobotsRoute) },
              { path: paths.settings.path, lazy: screen(() => import('../features/settings/routes/settings.tsx'), (m) => m.SettingsRoute) },
              { path: paths.logs.path, lazy: screen(() => import('../features/logs/routes/logs.tsx'), (m) => m.LogsRoute) },
              {
                path: paths.deliveries.path,
                lazy: screen(() => import('../features/deliveries/routes/deliveries.tsx'), (m) => m.DeliveriesRoute),
              },
              {
                path: paths.deliveryCreate.path,
                lazy: screen(() => import('../features/deliveries/routes/delivery-create.tsx'), (m) => m.DeliveryCreateRoute),
              },
              { path: paths.delivery.path, lazy: screen(() => import('../features/deliveries/routes/delivery.tsx'), (m) => m.DeliveryRoute) },
              {
                element: <RestrictedOnly />,
                children: [
                  { path: paths.admin.path, lazy: screen(() => import('../features/admin/routes/admin.tsx'), (m) => m.AdminRoute) },
                  {
                    path: paths.adminGroup.path,
                    lazy: screen(() => import('../features/admin/routes/group-assignment.tsx'), (m) => m.GroupAssignmentRoute),
                  },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];

export const AppRouter = () => {
  const router = useMemo(() => createBrowserRouter(createAppRoutes()), []);
  return <RouterProvider router={router} />;
};
