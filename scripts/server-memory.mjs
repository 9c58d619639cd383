// How a server process is started so that it holds less memory (bench/README.md "bench:memory" has the figures):
// scripts/start.mjs and scripts/serve-cluster.mjs start their server processes with these, bench/memory.ts
// measures the server with them, and `npm run serve` passes the flag on its command line (package.json). A
// deployment that starts node itself sets both as well (docs/operations.md "Memory").

/**
 * V8's young generation at most 2 × 8 MB instead of 2 × 16 MB. Node's default lets it grow to 32 MB, which stay
 * resident once touched; the server's live objects are short (a robot state, a request), so 16 MB are enough
 * between two scavenges. Also accepted in NODE_OPTIONS.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8'];

/**
 * glibc's malloc: allocations of 128 KB and more get their own mapping, given back to the system when freed.
 * By default glibc raises that threshold to the size of the largest such block freed so far (up to 32 MB), and
 * V8's compiler frees blocks of 1–9 MB while it optimises PGlite's WebAssembly: from then on those blocks come
 * from malloc's arenas, which keep them (about 50 MB in the demo). Read by glibc when the process starts, so it
 * is set in the environment of the process; other C libraries ignore it.
 */
export const SERVER_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };
