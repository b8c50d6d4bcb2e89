import { setFlagsFromString } from 'node:v8'

/**
 * The V8 flags the service runs with, from this one place; the bin sets them first thing
 * (applyV8Flags), so `pnpm start`, a container that runs the bin, `node animal-store.mjs`, the
 * cluster's workers, the benchmark and the end-to-end tests all run with them.
 *
 * Under load on PostgreSQL the peak RSS was old-space garbage, not live data: old space reached
 * 52 MiB before a full collection where 9 MiB were live, because V8 lets it grow up to 4× the live
 * size. Growing it by 30 % at most holds the peak near 106 MiB with the young generation at its
 * default size, where the earlier 4 MiB semi-spaces held it near 115 MiB at the price of four times
 * the scavenges and about 20 % of the throughput (bench/RESULTS.md). V8 reads it at each collection,
 * so set from inside it bounds the growth as it does on the command line (test/node-flags.test.ts).
 */
export const V8_FLAGS: ReadonlyArray<string> = ['--heap-growing-percent=30']

/** Sets V8_FLAGS in this process. */
export const applyV8Flags = (): void => {
  for (const flag of V8_FLAGS) setFlagsFromString(flag)
}

/**
 * The flags node is started with, on the bin's first line: none. A V8 flag there makes node compile
 * its own modules without their code cache, about 20 ms of CPU at every start (the service took
 * 1.25× the CPU of a bare Koa to its first 200, against 1.02× with the flag set from inside:
 * apps/api/bench/start-up.mjs); and node refuses it in NODE_OPTIONS.
 */
export const NODE_FLAGS: ReadonlyArray<string> = []
