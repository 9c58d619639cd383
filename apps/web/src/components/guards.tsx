import { Navigate, Outlet, useLocation } from 'react-router';
import { paths } from '../config/paths.ts';
import { hasRestrictedRole, useAuth } from '../lib/auth/auth-context.tsx';
import { returnPathOf } from '../lib/return-path.ts';
import { PageSpinner } from './spinner.tsx';

/** Behaviour §2: authenticated-only screens redirect to the auth route when signed out. */
export const AuthenticatedOnly = () => {
  const { status, user } = useAuth();
  const location = useLocation();
  if (status === 'authenticated') {
    // This user's password was given to them (an admin set it, or `npm run admin:create` printed it): they choose
    // their own before anything else, then go where they were going.
    if (user?.must_change_password && location.pathname !== paths.changePassword.path) {
      const { pathname, search, hash } = location;
      return <Navigate to={paths.changePassword.getHref()} replace state={{ from: { pathname, search, hash } }} />;
    }
    return <Outlet />;
  }
  if (status === 'unauthenticated') {
    const { pathname, search, hash } = location;
    return <Navigate to={paths.signIn.getHref()} replace state={{ from: { pathname, search, hash } }} />;
  }
  return <PageSpinner />;
};

/** Behaviour §2: sign-in, restore password and sign-up redirect to root when signed in. */
export const VisitorOnly = () => {
  const { status } = useAuth();
  const location = useLocation();
  if (status === 'authenticated') return <Navigate to={returnPathOf(location.state) ?? paths.home.getHref()} replace />;
  // While a stored session is restored the form would flash and vanish; a sign-in in flight keeps the form.
  if (status === 'initializing') return <PageSpinner />;
  return <Outlet />;
};

/** Behaviour §2, §6: admin and group-assignment screens redirect non-restricted roles to root. */
export const RestrictedOnly = () => {
  const { user } = useAuth();
  return hasRestrictedRole(user) ? <Outlet /> : <Navigate to={paths.home.getHref()} replace />;
};
