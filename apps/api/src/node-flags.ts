/**
 * The flags node runs the service with, from this one place: the bin's first line
 * (`#!/usr/bin/env -S node …`, written by scripts/bundle.mjs), so `pnpm start`, a container that
 * runs the bin and the cluster's workers (they inherit them) get them, and so do the benchmark and
 * the end-to-end tests, which start the bin with these. V8 fixes the young generation's size when
 * the heap is made, so the service cannot set it for itself. Semi-spaces of 4 MiB instead of up to
 * 16 hold peak RSS under load within 120 MiB on PostgreSQL too (139 → 117 MiB in one run), for
 * about 2 % more CPU in scavenges (bench/RESULTS.md).
 */
export const NODE_FLAGS: ReadonlyArray<string> = ['--max-semi-space-size=4']
