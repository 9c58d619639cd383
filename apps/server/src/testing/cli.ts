/**
 * The server's command-line tools as a person runs them: a child process in `apps/server`, from the built output as
 * a deployment runs them (built-server.ts).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { builtServerArgs } from './built-server.ts';

const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  /** The exit code; -1 when the process did not exit with one (killed). */
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `script` (relative to `apps/server`, e.g. `src/seed/site-import-cli.ts`) with `env` over this process's. */
export function runServerCli(script: string, args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return promisify(execFile)(process.execPath, [...builtServerArgs(script.replace(/^src\//, '')), ...args], { cwd: SERVER_ROOT, env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: unknown) => {
      const field = (key: string): unknown => (typeof error === 'object' && error !== null ? Reflect.get(error, key) : undefined);
      const text = (key: string) => {
        const value = field(key);
        return typeof value === 'string' ? value : '';
      };
      const code = field('code');
      return { code: typeof code === 'number' ? code : -1, stdout: text('stdout'), stderr: text('stderr') };
    },
  );
}
