import { getRuntimeConfig } from '@uvd/contracts';
import type { RuntimeConfig } from '@uvd/contracts';

export type { RuntimeConfig };
export type Backend = keyof RuntimeConfig['backends'];

export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
}

/**
 * The deployment's addresses, client id and variant come from `/config.json` at start-up (behaviour §7 "Base addresses
 * come from configuration"), so one build serves any deployment; nothing is baked in at build time.
 */
export const loadRuntimeConfig = async (fetchImpl: typeof fetch = fetch): Promise<RuntimeConfig> => {
  let reply: Response;
  try {
    reply = await fetchImpl(getRuntimeConfig.path, { headers: { accept: 'application/json' }, cache: 'no-store' });
  } catch (error) {
    throw new RuntimeConfigError(`${getRuntimeConfig.path} could not be fetched`, { cause: error });
  }
  if (!reply.ok) throw new RuntimeConfigError(`${getRuntimeConfig.path} answered ${reply.status}`);
  const parsed = getRuntimeConfig.response[200].safeParse(await reply.json());
  if (!parsed.success) throw new RuntimeConfigError(`${getRuntimeConfig.path} is malformed: ${parsed.error.message}`);
  return parsed.data;
};
