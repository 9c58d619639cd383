import { z } from 'zod';

/** Where a signed-out visitor was going, so sign-in can take them there (router state, parsed not cast). */
const ReturnState = z.object({ from: z.object({ pathname: z.string(), search: z.string(), hash: z.string() }) });

export const returnPathOf = (state: unknown): string | null => {
  const parsed = ReturnState.safeParse(state);
  if (!parsed.success) return null;
  const { pathname, search, hash } = parsed.data.from;
  return pathname.startsWith('/auth') ? null : `${pathname}${search}${hash}`;
};
