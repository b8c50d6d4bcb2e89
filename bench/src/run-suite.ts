import { randomBytes } from 'node:crypto'
import { measureColdStarts, type ColdStarts } from './cold-starts.js'
import { ensureWrk } from './load.js'
import type { BenchOptions } from './options.js'
import { createDatabase, databaseUrl, dropDatabase } from './postgres.js'
import { withDatabase } from './own-database.js'
import { finishRun, type FinishedRun, type Run } from './run-header.js'
import { runMode, type ModeFigures } from './run-mode.js'
import { runScale, type ScaleFigures } from './run-scale.js'
import { runTracing, type TracingFigures } from './run-tracing.js'
import { runWriteCeiling, type WriteCeiling } from './run-write-ceiling.js'
import type { Shared } from './servers.js'
import { checkTargets, type Target } from './targets.js'

/** Everything one run of the targets measured, ready to be written down. */
export type SuiteReport = {
  readonly run: FinishedRun
  readonly options: BenchOptions
  readonly modes: ReadonlyArray<ModeFigures>
  readonly coldStarts: ReadonlyArray<ColdStarts>
  /** Creates with two service instances on one database against one instance. */
  readonly write: WriteCeiling | undefined
  /** The listings' latency at each number of pets, and the plans at the largest. */
  readonly scale: ScaleFigures | undefined
  /** List 20 with tracing off, on for every request, on for one in ten (issue 28). */
  readonly tracing: TracingFigures
  readonly targets: ReadonlyArray<Target>
}

/**
 * Runs what the targets are checked on (`pnpm bench`): the in-memory mode and its cold starts,
 * then, on a database of its own, the PostgreSQL mode, its cold starts, creates with two instances
 * against one, and the listings' growth with the number of pets, dropping the database at the end;
 * last, what tracing costs in each mode (on PostgreSQL, on a fresh database seeded alike).
 * Throws (and reports nothing) when any run had an error or an unexpected status.
 */
export const runSuite = async (
  options: BenchOptions,
  run: Run,
  log: (line: string) => void,
): Promise<SuiteReport> => {
  ensureWrk(log)
  // A fresh key per run, among others, so the lookup is in a set of several digests.
  const apiKey = randomBytes(24).toString('base64url')
  const apiKeys = [randomBytes(24).toString('base64url'), apiKey, randomBytes(24).toString('base64url')]
  const modes: Array<ModeFigures> = []
  const coldStarts: Array<ColdStarts> = []
  let write: WriteCeiling | undefined
  let scale: ScaleFigures | undefined
  let postgresVersion: string | undefined

  if (options.modes.includes('memory')) {
    const memory: Shared = { apiKeys }
    const figures = await runMode('memory', options, memory, apiKey, log)
    modes.push(figures)
    coldStarts.push(...(await measureColdStarts(figures, options.coldStarts, memory, log)))
  }
  if (options.modes.includes('postgres')) {
    postgresVersion = await createDatabase(options.adminUrl, options.databaseName)
    const postgres = { apiKeys, databaseUrl: databaseUrl(options.adminUrl, options.databaseName) }
    try {
      const figures = await runMode('postgres', options, postgres, apiKey, log)
      modes.push(figures)
      coldStarts.push(...(await measureColdStarts(figures, options.coldStarts, postgres, log)))
      write = await runWriteCeiling(options, postgres, apiKey, log)
      if (options.scaleSizes.length > 0) scale = await runScale(options, postgres, apiKey, log)
    } finally {
      await dropDatabase(options.adminUrl, options.databaseName)
    }
  }
  // On a database of its own, holding the seeded pets as the scenarios' did (not what create and growth left).
  const tracing = await runTracing(options, (work) => withDatabase(options, 'tracing', work), log)
  return {
    run: finishRun(run, postgresVersion),
    options,
    modes,
    coldStarts,
    write,
    scale,
    tracing,
    targets: checkTargets(modes, coldStarts, scale, write, tracing),
  }
}
