import type { Role } from '@uvd/contracts';

/** Who is calling, from a verified access token. `orgId` is the token's realm. */
export interface Principal {
  sub: string;
  orgId: string;
  username: string;
  roles: Role[];
  givenName: string;
  familyName: string;
  email: string;
  groups: string[];
  /** The token's `iat` (seconds): a token issued before the user's password changed is refused (revocation.ts). */
  issuedAt?: number;
}
