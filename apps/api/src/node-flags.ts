/**
 * The flags node runs the service with, from this one place: the bin's first line
 * (`#!/usr/bin/env -S node …`, written by scripts/bundle.mjs), so `pnpm start`, a container that
 * runs the bin and the cluster's workers (they inherit them) get them, and so do the benchmark and
 * the end-to-end tests, which start the bin with these. V8 sizes its heap when the heap is made,
 * so the service cannot set this for itself.
 *
 * Under load on PostgreSQL the peak RSS was old-space garbage, not live data: old space reached
 * 52 MiB before a full collection where 9 MiB were live, because V8 lets it grow up to 4× the live
 * size. Growing it by 30 % at most holds the peak near 106 MiB with the young generation at its
 * default size, where the earlier 4 MiB semi-spaces held it near 115 MiB at the price of four times
 * the scavenges and about 20 % of the throughput (bench/RESULTS.md).
 */
export const NODE_FLAGS: ReadonlyArray<string> = ['--heap-growing-percent=30']
