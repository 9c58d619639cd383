import { Suspense, lazy } from 'react';
import type { ComponentType, LazyExoticComponent } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { AuthenticatedOnly, RestrictedOnly, VisitorOnly } from '../components/guards.tsx';
import { AppLayout, SessionLayout, VisitorLayout } from '../components/layout/app-layout.tsx';
import { homeHrefFor } from '../components/layout/nav-items.ts';
import { NotFound } from '../components/not-found.tsx';
import { RouteErrorBoundary } from '../components/route-error.tsx';
import { PageSpinner } from '../components/spinner.tsx';
import { paths } from '../config/paths.ts';
import { useRuntimeConfig } from '../lib/api-context.tsx';

/**
 * Route-level code splitting: each screen is its own chunk, loaded when first visited. The router wraps
 * navigations in transitions, so the screen being left stays up until the next one's chunk has arrived; the
 * layouts' Suspense shows a spinner only on a first load.
 */
const lazyScreen = <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyExoticComponent<ComponentType> =>
  lazy(async () => ({ default: pick(await load()) }));

const SignInRoute = lazyScreen(() => import('../features/auth/routes/sign-in.tsx'), (m) => m.SignInRoute);
const RestorePasswordRoute = lazyScreen(() => import('../features/auth/routes/restore-password.tsx'), (m) => m.RestorePasswordRoute);
const ResetPasswordRoute = lazyScreen(() => import('../features/auth/routes/reset-password.tsx'), (m) => m.ResetPasswordRoute);
const ChangePasswordRoute = lazyScreen(() => import('../features/auth/routes/change-password.tsx'), (m) => m.ChangePasswordRoute);
const SignUpRoute = lazyScreen(() => import('../features/auth/routes/sign-up.tsx'), (m) => m.SignUpRoute);
const JobRedirectRoute = lazyScreen(() => import('../features/jobs/routes/job-redirect.tsx'), (m) => m.JobRedirectRoute);
const JobsRoute = lazyScreen(() => import('../features/jobs/routes/jobs.tsx'), (m) => m.JobsRoute);
const JobCreateRoute = lazyScreen(() => import('../features/jobs/routes/job-create.tsx'), (m) => m.JobCreateRoute);
const JobEditRoute = lazyScreen(() => import('../features/jobs/routes/job-edit.tsx'), (m) => m.JobEditRoute);
const MapRoute = lazyScreen(() => import('../features/map/routes/map.tsx'), (m) => m.MapRoute);
const ProfileRoute = lazyScreen(() => import('../features/profile/routes/profile.tsx'), (m) => m.ProfileRoute);
const RobotsRoute = lazyScreen(() => import('../features/robots/routes/robots.tsx'), (m) => m.RobotsRoute);
const SettingsRoute = lazyScreen(() => import('../features/settings/routes/settings.tsx'), (m) => m.SettingsRoute);
const LogsRoute = lazyScreen(() => import('../features/logs/routes/logs.tsx'), (m) => m.LogsRoute);
const ReportsRoute = lazyScreen(() => import('../features/reports/routes/reports.tsx'), (m) => m.ReportsRoute);
const DeliveriesRoute = lazyScreen(() => import('../features/deliveries/routes/deliveries.tsx'), (m) => m.DeliveriesRoute);
const DeliveryCreateRoute = lazyScreen(() => import('../features/deliveries/routes/delivery-create.tsx'), (m) => m.DeliveryCreateRoute);
const DeliveryRoute = lazyScreen(() => import('../features/deliveries/routes/delivery.tsx'), (m) => m.DeliveryRoute);
const AdminRoute = lazyScreen(() => import('../features/admin/routes/admin.tsx'), (m) => m.AdminRoute);
const GroupAssignmentRoute = lazyScreen(() => import('../features/admin/routes/group-assignment.tsx'), (m) => m.GroupAssignmentRoute);

// Renders nothing; its work (pushes as toasts, the 7-day renewal) starts after the first screen.
const PushSession = lazyScreen(() => import('./push-session.tsx'), (m) => m.PushSession);
// The robots' waiting prompts above every signed-in screen; its chunk (and its stream) load after the first screen.
const PromptBanner = lazyScreen(() => import('../features/jobs/components/prompt-banner.tsx'), (m) => m.PromptBanner);
const promptBanner = (
  <Suspense fallback={null}>
    <PromptBanner />
  </Suspense>
);

const HomeRedirect = () => {
  const { variant } = useRuntimeConfig();
  return <Navigate to={homeHrefFor(variant)} replace />;
};

/**
 * Behaviour §2's route table. React Router ranks static segments first, so /auth/sign-up beats /auth/:organization?.
 * Declarative routes, not the data router (createBrowserRouter): no screen uses loaders or actions, and the data
 * router is 17 KB gzipped more of the JavaScript every first visit loads.
 */
export const AppRoutes = () => (
  <RouteErrorBoundary>
    <Suspense fallback={null}>
      <PushSession />
    </Suspense>
    <Suspense fallback={<PageSpinner />}>
      <Routes>
        <Route element={<VisitorOnly />}>
          <Route element={<VisitorLayout />}>
            <Route path={paths.signIn.path} element={<SignInRoute />} />
            <Route
              path={paths.restorePassword.path}
              element={<RestorePasswordRoute />}
            />
            <Route path={paths.signUp.path} element={<SignUpRoute />} />
            <Route path={paths.resetPassword.path} element={<ResetPasswordRoute />} />
          </Route>
        </Route>
        <Route element={<AuthenticatedOnly />}>
          <Route element={<VisitorLayout />}>
            <Route path={paths.changePassword.path} element={<ChangePasswordRoute />} />
          </Route>
          <Route element={<AppLayout banner={promptBanner} />}>
            <Route index element={<HomeRedirect />} />
            <Route path={paths.job.path} element={<JobRedirectRoute />} />
            <Route path={paths.jobs.path} element={<JobsRoute />} />
            <Route path={paths.jobCreate.path} element={<JobCreateRoute />} />
            <Route path={paths.jobEdit.path} element={<JobEditRoute />} />
            <Route path={paths.map.path} element={<MapRoute />} />
            <Route path={paths.profile.path} element={<ProfileRoute />} />
            <Route path={paths.robots.path} element={<RobotsRoute />} />
            <Route path={paths.settings.path} element={<SettingsRoute />} />
            <Route path={paths.logs.path} element={<LogsRoute />} />
            <Route path={paths.reports.path} element={<ReportsRoute />} />
            <Route
              path={paths.deliveries.path}
              element={<DeliveriesRoute />}
            />
            <Route
              path={paths.deliveryCreate.path}
              element={<DeliveryCreateRoute />}
            />
            <Route path={paths.delivery.path} element={<DeliveryRoute />} />
            <Route element={<RestrictedOnly />}>
              <Route path={paths.admin.path} element={<AdminRoute />} />
              <Route
                path={paths.adminGroup.path}
                element={<GroupAssignmentRoute />}
              />
            </Route>
          </Route>
        </Route>
        <Route element={<SessionLayout banner={promptBanner} />}>
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </Suspense>
  </RouteErrorBoundary>
);

export const AppRouter = () => (
  <BrowserRouter>
    <AppRoutes />
  </BrowserRouter>
);
