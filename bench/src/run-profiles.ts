import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { launch } from './launch.js'
import { drive, type Load } from './load.js'
import { seedThroughApi } from './run-mode.js'
import { scenariosFor } from './scenarios.js'
import { serviceSpec, type Mode, type Shared } from './servers.js'
import {
  formatProfileSummary,
  summarizeProfile,
  type CpuProfile,
  type ProfileSummary,
} from './summarize-profile.js'

/** Where the service spends its time under one scenario, from `node --cpu-prof`. */
export type ProfileFigures = {
  readonly mode: Mode
  readonly scenario: string
  readonly summary: ProfileSummary
}

/**
 * Runs the service under `node --cpu-prof`, a fresh process per scenario (seeded like the
 * measured runs), drives the scenario, stops the process so that it writes its profile, and
 * sums the samples by function and by package. Profiled runs are never the measured ones.
 */
export const runProfiles = async (
  mode: Mode,
  load: Load,
  seededPets: number,
  shared: Shared,
  apiKey: string,
  log: (line: string) => void,
): Promise<ReadonlyArray<ProfileFigures>> => {
  const dir = await mkdtemp(join(tmpdir(), 'pets-bench-profile-'))
  const figures: Array<ProfileFigures> = []
  try {
    for (const scenario of scenariosFor(seededPets)) {
      const name = `${mode}-${scenario.key}.cpuprofile`
      const service = await launch(
        serviceSpec(shared, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`]),
      )
      let skipMs = 0
      try {
        if (shared.databaseUrl === undefined) await seedThroughApi(service.url, apiKey, seededPets)
        skipMs = performance.now() - service.spawnedAt
        await drive(service, scenario, load, apiKey)
      } finally {
        await service.stop()
      }
      const profile = JSON.parse(await readFile(join(dir, name), 'utf8')) as CpuProfile
      const summary = summarizeProfile(profile, 15, skipMs)
      figures.push({ mode, scenario: scenario.title, summary })
      const top = summary.packages.slice(0, 5).map((p) => `${p.name} ${(p.share * 100).toFixed(0)} %`)
      log(`profile ${mode} ${scenario.title}: ${top.join(', ')}`)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return figures
}

/** The profiles as a section of RESULTS.md. */
export const profilesSection = (profiles: ReadonlyArray<ProfileFigures>): string =>
  [
    '## Where the service spends its time',
    '',
    '`node --cpu-prof` on a separate service process per scenario (never a measured one), summed by ' +
      'self time; samples taken before the load (start-up, seeding) are left out. Summarize any ' +
      'profile with `node bench/dist/summarize-profile.js FILE.cpuprofile [COUNT] [SKIP_MS]`.',
    '',
    ...profiles.flatMap((p) => [`### ${p.mode}, ${p.scenario}`, '', formatProfileSummary(p.summary), '']),
  ].join('\n')
