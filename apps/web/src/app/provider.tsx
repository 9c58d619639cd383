import { Suspense, lazy, useEffect } from 'react';
import type { ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { ApiProvider } from '../lib/api-context.tsx';
import { AuthProvider } from '../lib/auth/auth-context.tsx';
import { PushProvider } from '../lib/push/push-context.tsx';
import { useToastsRequested } from '../lib/toast.ts';
import type { AppServices } from './services.ts';

const Toasts = lazy(() => import('../components/toasts.tsx').then((module) => ({ default: module.Toasts })));

/** The toast container, mounted with the first toast (lib/toast.ts loads react-toastify then). */
const LazyToasts = () =>
  useToastsRequested() ? (
    <Suspense fallback={null}>
      <Toasts />
    </Suspense>
  ) : null;

export const AppProvider = ({ services, children }: { services: AppServices; children: ReactNode }) => {
  useEffect(() => {
    void services.auth.initialize();
  }, [services.auth]);
  return (
    <I18nextProvider i18n={services.i18n}>
      <ApiProvider api={services.api} config={services.config}>
        <QueryClientProvider client={services.queryClient}>
          <AuthProvider client={services.auth}>
            <PushProvider push={services.push}>
              {children}
              <LazyToasts />
            </PushProvider>
          </AuthProvider>
        </QueryClientProvider>
      </ApiProvider>
    </I18nextProvider>
  );
};
