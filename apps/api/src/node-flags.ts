import { setFlagsFromString } from 'node:v8'

/**
 * The service's V8 flags, set first thing by the bin (applyV8Flags; V8 reads them at each collection). Old
 * space grows by 30 % at most, not up to 4× the live size: under load the peak RSS was old-space garbage
 * (test/node-flags.test.ts holds the bound; bench/RESULTS.md#postgresql-list-20 shows the peak RSS).
 */
export const V8_FLAGS: ReadonlyArray<string> = ['--heap-growing-percent=30']

/** Sets V8_FLAGS in this process. */
export const applyV8Flags = (): void => {
  for (const flag of V8_FLAGS) setFlagsFromString(flag)
}

/**
 * The flags on the bin's first line: none. A V8 flag there makes node compile its own modules without their
 * code cache at every start (bench/RESULTS.md#cold-start-and-idle-memory), and NODE_OPTIONS refuses it.
 */
export const NODE_FLAGS: ReadonlyArray<string> = []
