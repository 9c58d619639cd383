// Loaded into a measured process with `node --import`: on SIGUSR2 it collects garbage when it can and prints the
// process's memory as one line, `memory-probe {...}` on stderr (bench/memory.ts reads it). It says when it listens.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  process.stderr.write(`memory-probe ${JSON.stringify(usage)}\n`);
});
process.stderr.write('memory-probe ready\n');
