/**
 * Password hashing: argon2id at OWASP's recommended parameters (m=19 MiB, t=2, p=1). @node-rs/argon2 hashes
 * on libuv's thread pool, off the event loop.
 */
import { hash, verify } from '@node-rs/argon2';

export const ARGON2_PARAMS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum, which verbatimModuleSyntax cannot import)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_PARAMS);

export const verifyPassword = (passwordHash: string, password: string): Promise<boolean> =>
  verify(passwordHash, password).catch(() => false);
