import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { Toasts } from '../components/toasts.tsx';
import { ApiProvider } from '../lib/api-context.tsx';
import { AuthProvider } from '../lib/auth/auth-context.tsx';
import type { AppServices } from './services.ts';

export const AppProvider = ({ services, children }: { services: AppServices; children: ReactNode }) => {
  useEffect(() => {
    void services.auth.initialize();
  }, [services.auth]);
  return (
    <I18nextProvider i18n={services.i18n}>
      <ApiProvider api={services.api} config={services.config}>
        <QueryClientProvider client={services.queryClient}>
          <AuthProvider client={services.auth}>
            {children}
            <Toasts />
          </AuthProvider>
        </QueryClientProvider>
      </ApiProvider>
    </I18nextProvider>
  );
};
