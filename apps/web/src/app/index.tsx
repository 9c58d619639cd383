import { AppProvider } from './provider.tsx';
import { AppRouter } from './router.tsx';
import type { AppServices } from './services.ts';

export const App = ({ services }: { services: AppServices }) => (
  <AppProvider services={services}>
    <AppRouter />
  </AppProvider>
);
