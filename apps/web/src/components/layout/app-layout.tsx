import { Suspense, useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { PageSpinner } from '../spinner.tsx';
import { paths } from '../../config/paths.ts';
import { useRuntimeConfig } from '../../lib/api-context.tsx';
import { useAuth, useAuthClient } from '../../lib/auth/auth-context.tsx';
import { homeHrefFor, navItemsFor } from './nav-items.ts';
import { MAIN_ID, SkipLink } from './skip-link.tsx';
import { useRouteFocus } from './use-route-focus.ts';

/**
 * The frame of every signed-in screen: skip link, top navigation filtered by role, the main region. Plain Bootstrap
 * markup rather than react-bootstrap's Navbar, which brings its offcanvas and transition runtime into the bundle
 * every screen loads first; the collapse below 768 px needs only a toggle. `banner` shows above every screen (the
 * app shell passes the robots' waiting prompts).
 */
export const AppLayout = ({ banner }: { banner?: ReactNode }) => {
  const { t } = useTranslation();
  const config = useRuntimeConfig();
  const auth = useAuthClient();
  const { user } = useAuth();
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  // The phone menu is open for the screen it was opened on: following a link (or going back) closes it.
  const [expandedOn, setExpandedOn] = useState<string | null>(null);
  const expanded = expandedOn === pathname;
  const toggle = useRef<HTMLButtonElement>(null);
  // Escape closes the open phone menu and puts focus back on its button (WAI-ARIA disclosure).
  useEffect(() => {
    if (!expanded) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      setExpandedOn(null);
      toggle.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [expanded]);
  const [signingOut, setSigningOut] = useState(false);
  useRouteFocus(main);

  const items = navItemsFor(config.variant, user?.roles ?? []);
  const logout = () => {
    setSigningOut(true);
    void auth.logout().finally(() => {
      setSigningOut(false);
    });
  };

  return (
    <>
      <SkipLink />
      <header className="navbar navbar-expand-md bg-primary app-navbar" data-bs-theme="dark">
        <div className="container-lg">
          <Link className="navbar-brand" to={homeHrefFor(config.variant)}>
            {t(config.variant === 'logistics' ? 'app.logisticsName' : 'app.name')}
          </Link>
          <button
            ref={toggle}
            type="button"
            className="navbar-toggler"
            aria-controls="main-navigation"
            aria-expanded={expanded}
            aria-label={t('nav.toggle')}
            onClick={() => {
              setExpandedOn(expanded ? null : pathname);
            }}
          >
            <span className="navbar-toggler-icon" />
          </button>
          <div id="main-navigation" className={expanded ? 'collapse navbar-collapse show' : 'collapse navbar-collapse'}>
            <nav aria-label={t('nav.label')} className="me-auto">
              <ul className="navbar-nav">
                {items.map((item) => (
                  <li key={item.key} className="nav-item">
                    <NavLink className="nav-link" to={item.href} data-testid={`nav-${item.key}`}>
                      {t(`nav.${item.key}`)}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </nav>
            <div className="d-flex align-items-center gap-3 py-2 py-md-0">
              {user ? <span className="navbar-text small">{user.username}</span> : null}
              <button type="button" className="btn btn-outline-light btn-sm" onClick={logout} disabled={signingOut}>
                {t('nav.logout')}
              </button>
            </div>
          </div>
        </div>
      </header>
      <main id={MAIN_ID} ref={main} tabIndex={-1} className="app-main">
        <div className="container-lg py-4">
          {banner}
          {/* A screen's chunk on a first load: the frame shows at once, a spinner where the screen will be. */}
          <Suspense fallback={<PageSpinner />}>
            <Outlet />
          </Suspense>
        </div>
      </main>
    </>
  );
};

/** Frame of the visitor screens (sign-in, restore password, sign-up): a centred card, no navigation. */
export const VisitorLayout = () => {
  const { t } = useTranslation();
  const main = useRef<HTMLElement>(null);
  useRouteFocus(main);
  return (
    <>
      <SkipLink />
      <main id={MAIN_ID} ref={main} tabIndex={-1} className="visitor-main">
        <div className="container py-5">
          <div className="visitor-card mx-auto">
            <p className="text-center h4 fw-bold text-primary mb-4">
              <Link to={paths.signIn.getHref()} className="text-decoration-none">
                {t('app.name')}
              </Link>
            </p>
            <Suspense fallback={<PageSpinner />}>
              <Outlet />
            </Suspense>
          </div>
        </div>
      </main>
    </>
  );
};

/**
 * The frame of a screen anyone may reach (the not-found page): the app's, navigation included, for a signed-in
 * user; a bare main region for a visitor. While a stored session is restored a spinner, so the frame does not
 * flash from one to the other.
 */
export const SessionLayout = ({ banner }: { banner?: ReactNode }) => {
  const { status } = useAuth();
  const main = useRef<HTMLElement>(null);
  useRouteFocus(main);
  if (status === 'authenticated') return <AppLayout banner={banner} />;
  if (status === 'initializing') return <PageSpinner />;
  return (
    <>
      <SkipLink />
      <main id={MAIN_ID} ref={main} tabIndex={-1} className="app-main">
        <div className="container-lg py-4">
          <Outlet />
        </div>
      </main>
    </>
  );
};
