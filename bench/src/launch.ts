import { freePort } from '@pets/adapters-postgres/testing'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { listensOn } from './listener-owner.js'
import { readProcMemory } from './memory.js'

/** A server process of the benchmark: the service or a baseline, listening and answering /healthz. */
export type Launched = {
  readonly name: string
  /** The keys of the scenarios it answers; every scenario when undefined. */
  readonly answers: ReadonlyArray<string> | undefined
  readonly url: string
  readonly pid: number
  /** When the process was spawned, on the performance.now() clock of this process. */
  readonly spawnedAt: number
  /** From spawn to the first 200 from /healthz. */
  readonly coldStartMs: number
  /** Resident memory `idleMs` after the first 200. */
  readonly idleRssBytes: number
  /** The most resident memory the process ever had (VmHWM). */
  readonly peakRssBytes: () => number
  /** What the process wrote to stderr, for the message when something fails. */
  readonly stderr: () => string
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
  readonly stop: () => Promise<void>
}

/** How to start one server: a Node script, its flags, and its environment. */
export type LaunchSpec = {
  readonly name: string
  readonly script: string
  readonly env: Readonly<Record<string, string>>
  readonly nodeFlags?: ReadonlyArray<string>
  readonly timeoutMs?: number
  readonly answers?: ReadonlyArray<string>
}

const healthStatus = (url: string): Promise<number> =>
  new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: false, timeout: 1000 }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', () => resolve(0))
    req.on('timeout', () => req.destroy())
    req.end()
  })

/** How long after its first 200 a server's idle memory is read. */
export const IDLE_MS = 500

// A server that found its port taken (by another test's server, between freePort and its listen).
class PortTaken extends Error {}

/**
 * Starts a server on a free port of 127.0.0.1 with PORT and HOST set, and resolves once /healthz
 * answers 200 (polled every 2 ms, so the cold start is measured to within that) from that server, and
 * `idleMs` more have passed, when its idle memory is read. A port taken meanwhile by another process is
 * given up for another, twice at most.
 */
export const launch = async (spec: LaunchSpec, idleMs = 0): Promise<Launched> => {
  for (let tries = 1; ; tries++) {
    try {
      return await launchOn(await freePort(), spec, idleMs)
    } catch (error) {
      if (!(error instanceof PortTaken) || tries === 3) throw error
    }
  }
}

/** One try of `launch`, on `port` (exported for its test). */
export const launchOn = async (port: number, spec: LaunchSpec, idleMs: number): Promise<Launched> => {
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  // The service's log lines go to /dev/null: a log collector's cost is not the service's.
  const child = spawn(process.execPath, [...(spec.nodeFlags ?? []), spec.script], {
    env: { PATH: process.env['PATH'] ?? '', ...spec.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)))
  let exited = false
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())))
  const giveUpAt = started + (spec.timeoutMs ?? 20_000)
  for (;;) {
    if (exited || child.pid === undefined) {
      const Failure = stderr.includes('EADDRINUSE') ? PortTaken : Error
      throw new Failure(`${spec.name} exited before it answered /healthz:\n${stderr}`)
    }
    // A 200 from another process on the port (this one then exits with EADDRINUSE) is not this one's.
    if ((await healthStatus(url)) === 200 && listensOn(child.pid, port)) break
    if (performance.now() > giveUpAt) {
      child.kill('SIGKILL')
      throw new Error(
        `${spec.name} did not answer /healthz within ${spec.timeoutMs ?? 20_000} ms:\n${stderr}`,
      )
    }
    await sleep(2)
  }
  const coldStartMs = performance.now() - started
  const pid = child.pid
  await sleep(idleMs)
  return {
    name: spec.name,
    answers: spec.answers,
    url,
    pid,
    spawnedAt: started,
    coldStartMs,
    idleRssBytes: readProcMemory(pid, 'VmRSS') ?? 0,
    peakRssBytes: () => readProcMemory(pid, 'VmHWM') ?? 0,
    stderr: () => stderr,
    stop: async () => {
      if (exited) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exit
      clearTimeout(timer)
    },
  }
}
