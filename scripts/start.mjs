#!/usr/bin/env node
// `npm start`: build the web console, then run the server, which serves it next to the API.
// A failed build does not keep the API from starting: the server then answers the console's pages with a 503
// that says how to build it. SKIP_WEB_BUILD=true starts the server on the last build (or none).
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

if (process.env.SKIP_WEB_BUILD === 'true') {
  console.log('SKIP_WEB_BUILD=true: starting the server on the existing web build.');
} else {
  console.log('Building the web console (npm run build -w @uvd/web) …');
  const build = spawnSync(npm, ['run', 'build', '-w', '@uvd/web'], { stdio: 'inherit' });
  if (build.status !== 0) {
    console.warn(
      `\nThe web console did not build (exit ${String(build.status ?? build.signal)}): the server starts anyway and ` +
        'answers its pages with "the web console is not built". Fix the build and run npm run build; no restart is needed.\n',
    );
  }
}

// The server's own start script, without another npm in between: signals reach the server itself.
const serverDir = fileURLToPath(new URL('../apps/server/', import.meta.url));
const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: serverDir, stdio: 'inherit' });
// The server shuts down cleanly (demo fleet, database, data-folder lock) on these; pass them on.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.kill(signal);
  });
}
server.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 1 : 0));
});
