import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { runAblation, type AblationFigures } from './ablation/run-ablation.js'
import { measureColdStarts, type ColdStarts } from './cold-starts.js'
import { ensureWrk, wrkVersion } from './load.js'
import { describeMachine, type Machine } from './machine.js'
import type { BenchOptions } from './options.js'
import { createDatabase, databaseUrl, dropDatabase } from './postgres.js'
import { runMode, type ModeFigures } from './run-mode.js'
import { runProfiles, type ProfileFigures } from './run-profiles.js'
import { runScale, type ScaleFigures } from './run-scale.js'
import { runWriteCeiling, type WriteCeiling } from './run-write-ceiling.js'
import type { Shared } from './servers.js'
import { checkTargets, type Target } from './targets.js'

/** Everything one run measured, ready to be written down. */
export type BenchReport = {
  readonly startedAt: Date
  readonly finishedAt: Date
  readonly options: BenchOptions
  readonly machine: Machine
  /** The machine's 1-minute load average as the run started and as it ended: other work skews figures. */
  readonly loadAverage: { readonly before: number; readonly after: number }
  readonly postgresVersion: string | undefined
  readonly wrkVersion: string
  readonly ablation: AblationFigures | undefined
  readonly modes: ReadonlyArray<ModeFigures>
  readonly coldStarts: ReadonlyArray<ColdStarts>
  readonly writeCeiling: WriteCeiling | undefined
  readonly scale: ScaleFigures | undefined
  readonly profiles: ReadonlyArray<ProfileFigures>
  readonly targets: ReadonlyArray<Target>
}

/**
 * Runs the whole benchmark: the in-memory mode, its cold starts, then on a database of its own the
 * PostgreSQL mode, its cold starts, the write ceiling, the CPU profiles and the scale test, and
 * drops the database at the end.
 * Throws (and reports nothing) when any run had an error or an unexpected status.
 */
export const runBench = async (options: BenchOptions, log: (line: string) => void): Promise<BenchReport> => {
  const startedAt = new Date()
  ensureWrk(log)
  const loadBefore = loadavg()[0] ?? 0
  // A fresh key per run, among others, so the lookup is in a set of several digests.
  const apiKey = randomBytes(24).toString('base64url')
  const apiKeys = [randomBytes(24).toString('base64url'), apiKey, randomBytes(24).toString('base64url')]
  const modes: Array<ModeFigures> = []
  const profiles: Array<ProfileFigures> = []
  const coldStarts: Array<ColdStarts> = []
  let writeCeiling: WriteCeiling | undefined
  let scale: ScaleFigures | undefined
  let postgresVersion: string | undefined

  // First, while nothing else of the run is on the machine.
  const ablation =
    options.ablation === undefined
      ? undefined
      : runAblation(options.ablation.requests, options.ablation.rounds, log)
  const memory: Shared = { apiKeys }
  if (options.modes.includes('memory')) {
    const figures = await runMode('memory', options, memory, apiKey, log)
    modes.push(figures)
    coldStarts.push(...(await measureColdStarts(figures, options.coldStarts, memory, log)))
    if (options.profileLoad !== undefined)
      profiles.push(
        ...(await runProfiles('memory', options.profileLoad, options.seededPets, memory, apiKey, log)),
      )
  }
  if (options.modes.includes('postgres')) {
    postgresVersion = await createDatabase(options.adminUrl, options.databaseName)
    const postgres = { apiKeys, databaseUrl: databaseUrl(options.adminUrl, options.databaseName) }
    try {
      const figures = await runMode('postgres', options, postgres, apiKey, log)
      modes.push(figures)
      coldStarts.push(...(await measureColdStarts(figures, options.coldStarts, postgres, log)))
      writeCeiling = await runWriteCeiling(options, postgres, apiKey, log)
      if (options.profileLoad !== undefined)
        profiles.push(
          ...(await runProfiles('postgres', options.profileLoad, options.seededPets, postgres, apiKey, log)),
        )
      if (options.scaleSizes.length > 0) scale = await runScale(options, postgres, apiKey, log)
    } finally {
      await dropDatabase(options.adminUrl, options.databaseName)
    }
  }
  return {
    startedAt,
    finishedAt: new Date(),
    options,
    machine: describeMachine(),
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    postgresVersion,
    wrkVersion: wrkVersion(),
    ablation,
    modes,
    coldStarts,
    writeCeiling,
    scale,
    profiles,
    targets: checkTargets(modes, coldStarts, scale, writeCeiling),
  }
}
