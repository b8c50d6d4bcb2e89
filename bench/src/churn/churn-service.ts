import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { SERVICE_MAIN } from '../servers.js'

// Preloaded into the primary: a line a second of its memory, handles, timers and descriptors (probe.ts).
const PROBE = fileURLToPath(new URL('./probe.js', import.meta.url))

/** The primary's line on a worker that exited: when it heard of it, and how long it waits to replace it. */
export type Exit = { readonly time: number; readonly restartInMs: number; readonly connectionsReset: number }

type Line = {
  pid: number
  time: number
  msg: string
  worker?: number
  restartInMs?: number
  connectionsReset?: number
}
const REPLACING = ['a worker died; replacing it', 'a worker stopped, not asked by the primary; replacing it']

/** The service with WEB_CONCURRENCY=2, its standard output a pipe (`| cat > log`), as an operator runs it. */
export type ChurnService = {
  readonly url: string
  readonly primary: number
  /** The pids of the workers now. */
  readonly workers: () => ReadonlyArray<number>
  /** When each worker wrote its `listening` line (its `time`), read from the log as it grows. */
  readonly listening: () => ReadonlyMap<number, number>
  /** The primary's line on each worker that exited (`a worker died`, `a worker stopped, not asked`): when, and its back-off. */
  readonly exits: () => ReadonlyMap<number, Exit>
  /** The primary's probe lines (probe.ts), in order. */
  readonly probes: () => ReadonlyArray<Record<string, unknown>>
  /** SIGTERM to the primary (again: none, it has exited); its exit status once it and `cat` are done. */
  readonly stop: () => Promise<number | null>
}

/** Starts the cluster on `port` and resolves once both workers listen; the log goes to `logFile`. */
export const startChurnService = async (
  env: Readonly<Record<string, string>>,
  port: number,
  logFile: string,
  probeFile: string,
): Promise<ChurnService> => {
  const out = openSync(logFile, 'w')
  const primary: ChildProcess = spawn(process.execPath, [SERVICE_MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      ...env,
      WEB_CONCURRENCY: '2',
      HOST: '127.0.0.1',
      PORT: String(port),
      NODE_OPTIONS: `--import ${PROBE}`,
      CHURN_PROBE_FILE: probeFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const cat = spawn('cat', [], { stdio: [primary.stdout!, out, 'inherit'] })
  closeSync(out)
  const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)))
  const catDone = new Promise<void>((resolve) => cat.once('exit', () => resolve()))
  const pid = primary.pid!

  const listening = new Map<number, number>()
  const exits = new Map<number, Exit>()
  let offset = 0
  let partial = ''
  const readLog = () => {
    const size = statSync(logFile).size
    if (size <= offset) return
    const fd = openSync(logFile, 'r')
    const chunk = Buffer.alloc(Math.min(size - offset, 1 << 24))
    offset += readSync(fd, chunk, 0, chunk.length, offset)
    closeSync(fd)
    const lines = (partial + chunk.toString()).split('\n')
    partial = lines.pop() ?? ''
    for (const text of lines) {
      if (!text.includes('"msg":"listening"') && !text.includes('"msg":"a worker ')) continue
      const line = JSON.parse(text) as Line
      if (line.msg === 'listening' && !listening.has(line.pid)) listening.set(line.pid, line.time)
      if (REPLACING.includes(line.msg) && line.worker !== undefined)
        exits.set(line.worker, {
          time: line.time,
          restartInMs: line.restartInMs ?? 0,
          connectionsReset: line.connectionsReset ?? 0,
        })
    }
  }
  const workers = () => {
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')
      return children.filter(Boolean).map(Number)
    } catch {
      return []
    }
  }
  const giveUpAt = Date.now() + 30_000
  for (readLog(); workers().filter((w) => listening.has(w)).length < 2; readLog()) {
    if (Date.now() > giveUpAt) {
      primary.kill('SIGKILL')
      throw new Error('the cluster did not listen within 30 s')
    }
    await sleep(50)
  }
  return {
    url: `http://127.0.0.1:${port}`,
    primary: pid,
    workers,
    listening: () => (readLog(), listening),
    exits: () => (readLog(), exits),
    probes: () => {
      try {
        const text = readFileSync(probeFile, 'utf8').trim()
        return text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
      } catch {
        return []
      }
    },
    stop: () => {
      primary.kill('SIGTERM')
      return exited.then(async (code) => (await catDone, code))
    },
  }
}
