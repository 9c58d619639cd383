import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import type { SessionUser } from '@uvd/contracts';
import { isRestricted } from '@uvd/contracts';
import type { AuthClient, AuthState } from './auth-client.ts';

const AuthContext = createContext<AuthClient | null>(null);

export const AuthProvider = ({ client, children }: { client: AuthClient; children: ReactNode }) => (
  <AuthContext value={client}>{children}</AuthContext>
);

export const useAuthClient = (): AuthClient => {
  const client = useContext(AuthContext);
  if (!client) throw new Error('useAuthClient needs an AuthProvider');
  return client;
};

export const useAuth = (): AuthState => {
  const client = useAuthClient();
  return useSyncExternalStore(client.subscribe, client.getSnapshot);
};

/** The signed-in user; only for screens behind the authenticated guard. */
export const useSessionUser = (): SessionUser => {
  const { user } = useAuth();
  if (!user) throw new Error('useSessionUser is only for authenticated screens');
  return user;
};

export const hasRestrictedRole = (user: SessionUser | null): boolean => (user ? isRestricted(user.roles) : false);
