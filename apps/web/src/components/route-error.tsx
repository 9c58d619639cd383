import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { PageTitle } from './page-title.tsx';

/** A screen that failed to load or render: say so and offer a reload, never a blank page. */
export const RouteError = ({ error }: { error: unknown }) => {
  const { t } = useTranslation();
  return (
    <main>
      <div className="container py-5">
        <PageTitle title={t('routeError.title')} />
        <p>{t('routeError.message')}</p>
        {import.meta.env.DEV && error instanceof Error ? <pre className="small text-danger">{error.message}</pre> : null}
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => {
            window.location.reload();
          }}
        >
          {t('routeError.reload')}
        </button>
      </div>
    </main>
  );
};

interface BoundaryProps {
  /** The address: the error is forgotten when it changes (going back, or following a link). */
  resetKey: string;
  children: ReactNode;
}

interface BoundaryState {
  failed: boolean;
  error: unknown;
  /** The address the state belongs to. */
  key: string;
}

class ErrorBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { failed: false, error: null, key: this.props.resetKey };

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    return props.resetKey === state.key ? null : { failed: false, error: null, key: props.resetKey };
  }

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { failed: true, error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? <RouteError error={this.state.error} /> : this.props.children;
  }
}

/** Catches what a screen throws while loading (a chunk gone after a deploy) or rendering; cleared by navigating. */
export const RouteErrorBoundary = ({ children }: { children: ReactNode }) => {
  const { pathname } = useLocation();
  return <ErrorBoundary resetKey={pathname}>{children}</ErrorBoundary>;
};
