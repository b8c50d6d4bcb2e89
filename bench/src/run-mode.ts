import { setTimeout as sleep } from 'node:timers/promises'
import { launch, type Launched } from './launch.js'
import { drive, type Load, type Sample } from './load.js'
import { mib } from './memory.js'
import type { BenchOptions } from './options.js'
import { seedPets } from './postgres.js'
import { checkSameAnswers } from './same-answers.js'
import { scenariosFor, seedPet, type Scenario } from './scenarios.js'
import { baselineSpecs, serviceSpec, type Mode, type Shared } from './servers.js'

/** What one server showed in a mode. */
export type ServerFigures = {
  readonly name: string
  readonly coldStartMs: number
  readonly idleRssBytes: number
  /** VmHWM at the end of the mode: the most resident memory the process ever had. */
  readonly peakRssBytes: number
}

/** Each round's sample of every server (by name) for one scenario. */
export type ScenarioFigures = {
  readonly scenario: Scenario
  readonly rounds: ReadonlyArray<Readonly<Record<string, Sample>>>
}

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
 * server takes its turn (A B C A B C …). Stops the servers, also when a run is invalid.
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
    servers.push(await launch(serviceSpec(shared)))
    // The service migrates the schema as it starts; the baselines find the table made.
    if (shared.databaseUrl !== undefined) await seedPets(shared.databaseUrl, options.seededPets)
    for (const spec of baselineSpecs(mode, shared)) servers.push(await launch(spec))
    if (shared.databaseUrl === undefined)
      await Promise.all(servers.map((s) => seedThroughApi(s.url, apiKey, options.seededPets)))
    for (const s of servers)
      log(
        `${mode}: ${s.name} answered in ${s.coldStartMs.toFixed(0)} ms, idle RSS ${mib(s.idleRssBytes)} MiB`,
      )
    const notes = await checkSameAnswers(servers, scenariosFor(options.seededPets), apiKey)
    for (const note of notes) log(`${mode}: note: ${note}`)

    const scenarios: Array<ScenarioFigures> = []
    for (const scenario of scenariosFor(options.seededPets)) {
      if (options.warmup !== undefined)
        for (const server of servers) await drive(server, scenario, options.warmup, apiKey)
      const rounds: Array<Record<string, Sample>> = []
      for (let round = 1; round <= options.rounds; round++) {
        const samples: Record<string, Sample> = {}
        for (const server of servers) {
          samples[server.name] = await drive(server, scenario, options.load as Load, apiKey)
          log(
            `${mode} ${scenario.title} round ${round}/${options.rounds} ${server.name}: ${format(samples[server.name]!)}`,
          )
          await sleep(100)
        }
        rounds.push(samples)
      }
      scenarios.push({ scenario, rounds })
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
