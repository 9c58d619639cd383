import { useEffect, useRef, useState } from 'react';
import { Button, Container, Nav, Navbar } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, Outlet, useLocation, useNavigation } from 'react-router';
import { paths } from '../../config/paths.ts';
import { useRuntimeConfig } from '../../lib/api-context.tsx';
import { useAuth, useAuthClient } from '../../lib/auth/auth-context.tsx';
import { homeHrefFor, navItemsFor } from './nav-items.ts';
import { MAIN_ID, SkipLink } from './skip-link.tsx';
import { useRouteFocus } from './use-route-focus.ts';

/** The frame of every signed-in screen: skip link, top navigation filtered by role, the main region. */
export const AppLayout = () => {
  const { t } = useTranslation();
  const config = useRuntimeConfig();
  const auth = useAuthClient();
  const { user } = useAuth();
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const main = useRef<HTMLElement>(null);
  const [expanded, setExpanded] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  useRouteFocus(main);
  // The collapsed menu (phones) closes once a link is followed.
  useEffect(() => {
    setExpanded(false);
  }, [pathname]);

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
      <header>
        <Navbar expand="md" bg="primary" data-bs-theme="dark" expanded={expanded} onToggle={setExpanded} className="app-navbar">
          <Container fluid="lg">
            <Navbar.Brand as={Link} to={homeHrefFor(config.variant)}>
              {t(config.variant === 'logistics' ? 'app.logisticsName' : 'app.name')}
            </Navbar.Brand>
            <Navbar.Toggle aria-controls="main-navigation" aria-label={t('nav.toggle')} />
            <Navbar.Collapse id="main-navigation">
              <Nav as="nav" aria-label={t('nav.label')} className="me-auto">
                {items.map((item) => (
                  <Nav.Link key={item.key} as={NavLink} to={item.href} data-testid={`nav-${item.key}`}>
                    {t(`nav.${item.key}`)}
                  </Nav.Link>
                ))}
              </Nav>
              <div className="d-flex align-items-center gap-3 py-2 py-md-0">
                {user ? <span className="navbar-text small">{user.username}</span> : null}
                <Button variant="outline-light" size="sm" onClick={logout} disabled={signingOut}>
                  {t('nav.logout')}
                </Button>
              </div>
            </Navbar.Collapse>
          </Container>
        </Navbar>
      </header>
      <main id={MAIN_ID} ref={main} tabIndex={-1} className="app-main" aria-busy={navigation.state === 'loading'}>
        <Container fluid="lg" className="py-4">
          <Outlet />
        </Container>
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
        <Container className="py-5">
          <div className="visitor-card mx-auto">
            <p className="text-center h4 fw-bold text-primary mb-4">
              <Link to={paths.signIn.getHref()} className="text-decoration-none">
                {t('app.name')}
              </Link>
            </p>
            <Outlet />
          </div>
        </Container>
      </main>
    </>
  );
};
