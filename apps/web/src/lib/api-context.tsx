import { createContext, useContext, useMemo } from 'react';
import type { ReactNode } from 'react';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { ApiClient } from './api-client.ts';

interface ApiContextValue {
  api: ApiClient;
  config: RuntimeConfig;
}

const ApiContext = createContext<ApiContextValue | null>(null);

export const ApiProvider = ({ api, config, children }: ApiContextValue & { children: ReactNode }) => {
  const value = useMemo(() => ({ api, config }), [api, config]);
  return <ApiContext value={value}>{children}</ApiContext>;
};

const useApiContext = (): ApiContextValue => {
  const value = useContext(ApiContext);
  if (!value) throw new Error('useApi needs an ApiProvider');
  return value;
};

/** The HTTP client of every backend; features' query functions take it as their first argument. */
export const useApi = (): ApiClient => useApiContext().api;
export const useRuntimeConfig = (): RuntimeConfig => useApiContext().config;
