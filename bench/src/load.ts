import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readProcCpuMs, sampleRss } from './memory.js'
import type { Scenario } from './scenarios.js'

/** How hard and how long one run drives a server. */
export type Load = {
  readonly connections: number
  /** Seconds of load (wrk is stopped with SIGINT then, so fractions work). */
  readonly durationS: number
}

/** What one run measured. Latencies are in milliseconds. */
export type Sample = {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly peakRssBytes: number
  readonly requests: number
  /** CPU time (user and system) the server used per request, in µs. */
  readonly cpuUsPerRequest: number
}

/** A run that had an error or an unexpected status: its figures must not be reported. */
export class InvalidRun extends Error {
  override readonly name = 'InvalidRun'
}

// A run whose wrk ended without its result line (see drive).
class WrkGaveNoResult extends InvalidRun {}

/** The value at quantile q (0..1) of ascending numbers. */
export const quantile = (sorted: ArrayLike<number>, q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const SCRIPT = fileURLToPath(new URL('../src/wrk.lua', import.meta.url))

const onPath = (name: string): string | undefined =>
  (process.env['PATH'] ?? '')
    .split(':')
    .map((dir) => join(dir, name))
    .find((path) => {
      try {
        accessSync(path, constants.X_OK)
        return true
      } catch {
        return false
      }
    })

let wrkPath: string | undefined

/**
 * The path of wrk, installed with Debian's apt-get first when it is missing (as root, or through
 * sudo without a password), as scripts/bootstrap.sh installs Chromium. Throws, saying how to
 * install it, where that cannot be done: figures of another load generator are not comparable.
 */
export const ensureWrk = (log: (line: string) => void = () => {}): string => {
  wrkPath ??= onPath('wrk')
  if (wrkPath !== undefined) return wrkPath
  const sudo =
    process.getuid?.() === 0
      ? []
      : spawnSync('sudo', ['-n', 'true']).status === 0
        ? ['sudo', '-n']
        : undefined
  if (sudo === undefined || onPath('apt-get') === undefined)
    throw new Error(
      "the benchmark's load generator, wrk, is missing: install it with 'apt-get install -y wrk'",
    )
  log("installing Debian's wrk, the benchmark's load generator")
  const command = sudo[0] ?? 'apt-get'
  const prefix = sudo.length > 0 ? [...sudo.slice(1), 'apt-get'] : []
  const apt = (...args: ReadonlyArray<string>) =>
    execFileSync(command, [...prefix, ...args], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
  apt('update', '-qq')
  apt('install', '-y', '-qq', 'wrk')
  wrkPath = onPath('wrk')
  if (wrkPath === undefined) throw new Error('apt-get installed wrk, but it is not on PATH')
  return wrkPath
}

/** Whether a process has a handler for SIGINT (bit 2 of SigCgt in /proc/PID/status). */
const catchesSigint = (pid: number): boolean => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    // Until it has exec'd wrk, the child is a copy of this process, whose handlers it shows (a test
    // runner catches SIGINT): a SIGINT then would end wrk as soon as it starts, with no result.
    if (/^Name:\s+(.*)$/m.exec(status)?.[1] !== 'wrk') return false
    const caught = /^SigCgt:\s+([0-9a-f]+)$/m.exec(status)?.[1]
    return caught !== undefined && (BigInt(`0x${caught}`) & 2n) !== 0n
  } catch {
    return false
  }
}

type WrkResult = {
  readonly requests: number
  readonly durationUs: number
  readonly p50Us: number
  readonly p99Us: number
  readonly errors: Readonly<Record<'connect' | 'read' | 'write' | 'status' | 'timeout', number>>
  readonly unexpected: Readonly<Record<string, number>>
}

const runWrk = (url: string, scenario: Scenario, load: Load, apiKey: string): Promise<WrkResult> =>
  new Promise((resolve, reject) => {
    // One wrk thread: the servers are single-threaded, and the load generator shares their cores.
    const args = ['--threads', '1', '--connections', String(load.connections), '--timeout', '10s']
    // wrk counts whole seconds; it is stopped with SIGINT at the duration, and measures its own time.
    args.push('--duration', `${Math.ceil(load.durationS) + 10}s`, '--script', SCRIPT)
    args.push('--header', `Authorization: Bearer ${apiKey}`)
    if (scenario.body !== undefined) args.push('--header', 'Content-Type: application/json')
    const child = spawn(ensureWrk(), [...args, url], {
      env: {
        PATH: process.env['PATH'] ?? '',
        WRK_METHOD: scenario.method,
        WRK_BODY: scenario.body ?? '',
        WRK_STATUS: String(scenario.status),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    // The duration starts once wrk catches SIGINT (before that, SIGINT would kill it silently).
    let timer: NodeJS.Timeout | undefined
    const waitForHandler = setInterval(() => {
      if (child.pid === undefined || !catchesSigint(child.pid)) return
      clearInterval(waitForHandler)
      timer = setTimeout(() => child.kill('SIGINT'), load.durationS * 1000)
    }, 2)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearInterval(waitForHandler)
      clearTimeout(timer)
      const line = output.split('\n').find((l) => l.startsWith('WRK_RESULT '))
      if (line === undefined)
        reject(
          new WrkGaveNoResult(`wrk gave no result for ${url} (exit ${signal ?? code}):\n${output.trim()}`),
        )
      else resolve(JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult)
    })
  })

/**
 * Drives one server with one scenario through wrk (a separate process, one thread) and measures
 * requests per second, the latencies (wrk's, per response, in µs), the server's peak resident memory
 * and its CPU time. Throws InvalidRun on any error, timeout or status other than the expected one.
 */
export const drive = async (
  target: { readonly name: string; readonly url: string; readonly pid: number },
  scenario: Scenario,
  load: Load,
  apiKey: string,
): Promise<Sample> => {
  const rss = sampleRss(target.pid)
  const cpuBefore = readProcCpuMs(target.pid)
  let peakRssBytes: number
  let result: WrkResult
  try {
    // wrk itself, killed before it wrote a line (its output is buffered), says nothing of the
    // server: that run is made once more. Anything the server answered wrongly still stops the run.
    const once = () => runWrk(`${target.url}${scenario.path}`, scenario, load, apiKey)
    result = await once().catch((error: unknown) => {
      if (!(error instanceof WrkGaveNoResult)) throw error
      process.stderr.write(`${error.message.split('\n')[0]}; running it once more\n`)
      return once()
    })
    // Not one answer and not one error in a short run (the smoke's 0.25 s) says the machine was busy, not that
    // the server is wrong (seen once in CI: fastify+pg, create): made once more too; a second time, refused.
    if (result.requests === 0 && Object.values(result.errors).every((n) => n === 0)) {
      process.stderr.write(
        `${target.name}, ${scenario.title}: no answer within the run; running it once more\n`,
      )
      result = await once()
    }
  } finally {
    peakRssBytes = rss.stop()
  }
  const cpuMs = readProcCpuMs(target.pid) - cpuBefore
  const errors = Object.entries(result.errors).filter(([, count]) => count > 0)
  const statuses = Object.entries(result.unexpected)
  if (errors.length > 0 || statuses.length > 0 || result.requests === 0)
    throw new InvalidRun(
      `${target.name}, ${scenario.title}: ${result.requests} responses; errors: ` +
        `${errors.map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none'}; statuses other than ` +
        `${scenario.status}: ${statuses.map(([s, count]) => `${s}×${count}`).join(', ') || 'none'}; ` +
        'this run is not reported.',
    )
  return {
    requestsPerSecond: result.requests / (result.durationUs / 1e6),
    p50Ms: result.p50Us / 1000,
    p99Ms: result.p99Us / 1000,
    peakRssBytes,
    requests: result.requests,
    cpuUsPerRequest: (cpuMs * 1000) / result.requests,
  }
}

/** What wrk says it is, such as "wrk 4.1.0 [epoll]". */
export const wrkVersion = (): string => {
  const { stdout, stderr } = spawnSync(ensureWrk(), ['-v'], { encoding: 'utf8' })
  return /wrk \S+( \[\w+\])?/.exec(`${stdout}${stderr}`)?.[0] ?? 'wrk'
}
