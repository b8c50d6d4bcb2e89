import { setTimeout as sleep } from 'node:timers/promises'
import { IDLE_MS, launch, type Launched } from './launch.js'
import { drive, type Sample } from './load.js'
import { mib } from './memory.js'
import type { BenchOptions } from './options.js'
import { seedPets } from './postgres.js'
import { checkSameAnswers } from './same-answers.js'
import { scenariosFor, seedPet, STORED_KEY_SCENARIO, type Scenario } from './scenarios.js'
import {
  baselineSpecs,
  createStoredKey,
  serviceCommand,
  serviceSpec,
  type Mode,
  type Shared,
} from './servers.js'

/** What one server showed in a mode. */
export type ServerFigures = {
  readonly name: string
  /** Its first start in the mode: spawn to the first 200 from /healthz, one process at a time. */
  readonly coldStartMs: number
  readonly idleRssBytes: number
  /** VmHWM at the end of the mode: the most resident memory the process ever had. */
  readonly peakRssBytes: number
}

/** Each round's sample of every contestant (by name) for one scenario. */
export type ScenarioFigures = {
  readonly scenario: Scenario
  /** Who was driven, in this order; the first is the one the ratios are of (the service). */
  readonly contestants: ReadonlyArray<string>
  readonly rounds: ReadonlyArray<Readonly<Record<string, Sample>>>
}

/** A server driven with one key. */
type Contestant = Launched & { readonly apiKey: string }

/** Everything measured in one mode; the service is always the first server. */
export type ModeFigures = {
  readonly mode: Mode
  readonly servers: ReadonlyArray<ServerFigures>
  readonly scenarios: ReadonlyArray<ScenarioFigures>
  /** Headers that some servers send and others do not. */
  readonly notes: ReadonlyArray<string>
}

/** Adds pets 1..count through the API, one at a time so that every server gives the same ids. */
export const seedThroughApi = async (url: string, apiKey: string, count: number): Promise<void> => {
  for (let i = 1; i <= count; i++) {
    const response = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(seedPet(i)),
    })
    await response.arrayBuffer()
    if (response.status !== 201) throw new Error(`seeding ${url}: pet ${i} answered ${response.status}`)
  }
}

const format = (sample: Sample) =>
  `${Math.round(sample.requestsPerSecond).toLocaleString('en')} req/s, p50 ${sample.p50Ms.toFixed(2)} ms, ` +
  `p99 ${sample.p99Ms.toFixed(2)} ms, CPU ${sample.cpuUsPerRequest.toFixed(0)} µs/request, ` +
  `peak RSS ${mib(sample.peakRssBytes)} MiB`

/**
 * Starts the service and the mode's baselines, seeds them with the same pets, checks that they
 * answer alike, then drives every scenario: a warm-up per server, then rounds in which each
 * server takes its turn (A B C A B C …). On PostgreSQL, list 20 once more, on the service only,
 * with a stored key against an API_KEYS one. Stops the servers, also when a run is invalid.
 */
export const runMode = async (
  mode: Mode,
  options: BenchOptions,
  shared: Shared,
  apiKey: string,
  log: (line: string) => void,
): Promise<ModeFigures> => {
  const servers: Array<Launched> = []
  try {
    // The schema first (`animal-store migrate`), so that no start below includes making it.
    let storedKey: string | undefined
    if (shared.databaseUrl !== undefined) {
      await serviceCommand(shared.databaseUrl, 'migrate')
      storedKey = await createStoredKey(shared.databaseUrl, 'bench')
    }
    // One process at a time, before any load: each start is the first sample of its cold start.
    for (const spec of [serviceSpec(shared), ...baselineSpecs(mode, shared)]) {
      const server = await launch(spec, IDLE_MS)
      servers.push(server)
      log(
        `${mode}: ${server.name} answered in ${server.coldStartMs.toFixed(0)} ms, idle RSS ${mib(server.idleRssBytes)} MiB`,
      )
    }
    const service = servers[0]!
    if (shared.databaseUrl !== undefined) await seedPets(shared.databaseUrl, options.seededPets)
    else await Promise.all(servers.map((s) => seedThroughApi(s.url, apiKey, options.seededPets)))
    const notes = await checkSameAnswers(servers, scenariosFor(options.seededPets), apiKey)
    for (const note of notes) log(`${mode}: note: ${note}`)

    const plan = scenariosFor(options.seededPets).map((scenario) => ({
      scenario,
      contestants: servers
        .filter((s) => s.answers?.includes(scenario.key) ?? true)
        .map((s): Contestant => ({ ...s, apiKey })),
    }))
    if (storedKey !== undefined)
      plan.push({
        scenario: STORED_KEY_SCENARIO,
        contestants: [
          { ...service, name: 'service, stored key', apiKey: storedKey },
          { ...service, apiKey },
        ],
      })
    const scenarios: Array<ScenarioFigures> = []
    for (const { scenario, contestants } of plan) {
      if (options.warmup !== undefined)
        for (const c of contestants) await drive(c, scenario, options.warmup, c.apiKey)
      const rounds: Array<Record<string, Sample>> = []
      for (let round = 1; round <= options.rounds; round++) {
        const samples: Record<string, Sample> = {}
        for (const c of contestants) {
          samples[c.name] = await drive(c, scenario, options.load, c.apiKey)
          log(
            `${mode} ${scenario.title} round ${round}/${options.rounds} ${c.name}: ${format(samples[c.name]!)}`,
          )
          if (!options.smoke) await sleep(100) // the server settles between runs
        }
        rounds.push(samples)
      }
      scenarios.push({ scenario, contestants: contestants.map((c) => c.name), rounds })
    }
    return {
      mode,
      servers: servers.map((s) => ({
        name: s.name,
        coldStartMs: s.coldStartMs,
        idleRssBytes: s.idleRssBytes,
        peakRssBytes: s.peakRssBytes(),
      })),
      scenarios,
      notes,
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}
