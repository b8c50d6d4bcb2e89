import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { NODE_FLAGS } from '../../src/node-flags.js'

/** The bundled entry point, as `pnpm start`, the bin and a container run it. */
export const MAIN = fileURLToPath(new URL('../../dist/bin/animal-store.mjs', import.meta.url))

export type ChildServiceOptions = {
  readonly mode: 'child'
  /** The whole environment besides PATH, PORT=0 and LOG_FORMAT=json: nothing of the test's own. */
  readonly env: Readonly<Record<string, string>>
  /** How long to wait for the "listening" line(s); generous, as starting Node on a busy machine is slow. */
  readonly timeoutMs?: number
  /** How many "listening" lines to wait for: one per worker of WEB_CONCURRENCY. */
  readonly listening?: number
}

/** The built service as a real process on a free port. */
export type ChildService = {
  readonly url: string
  readonly child: ChildProcess
  /** Everything the process wrote so far, stdout and stderr. */
  readonly output: () => string
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>
  /** Sends a signal and resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
  /** A plain fetch of `path`, with `key` as bearer credential when given. */
  readonly get: (path: string, key?: string) => Promise<Response>
  /** Stops it with SIGTERM and resolves with the exit code. */
  readonly close: () => Promise<number | null>
}

/** What the processes of this test file wrote, and the keys they were given, for `spawnedLogs`. */
const spawned: Array<{ readonly output: () => string; readonly secrets: ReadonlyArray<string> }> = []
const remembered = new Set<string>()

/** A key a test issued some other way (`keys create`): no spawned process may log it either. */
export const rememberSecret = (key: string): void => void remembered.add(key)

/**
 * Forgets the processes and keys of the files before this one: the files of a vitest worker share this module
 * (`isolate: false`), and each file's check is about its own processes (no-key-in-logs.ts, before each file).
 */
export const forgetEarlierFiles = (): void => {
  spawned.length = 0
  remembered.clear()
}

/** Every line every service of this file wrote, with the API keys none of them may contain. */
export const spawnedLogs = () => ({
  lines: spawned.flatMap((s) => s.output().split('\n')),
  secrets: [...new Set([...spawned.flatMap((s) => s.secrets), ...remembered])],
})

/** Starts the built service as a real process and waits for its "listening" line(s). */
export const startChild = ({
  env,
  timeoutMs = 20_000,
  listening = 1,
}: ChildServiceOptions): Promise<ChildService> =>
  new Promise((resolve, reject) => {
    // With the flags its first line gives node, as when the file is run itself.
    const child = spawn(process.execPath, [...NODE_FLAGS, MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    spawned.push({
      output: () => output,
      secrets: (env['API_KEYS'] ?? '').split(',').filter((k) => k !== ''),
    })
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    // A deadline, not a sleep: it fails the start that never says "listening".
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the service did not start within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    let started = false
    const onExit = (code: number | null) => {
      clearTimeout(timer)
      reject(new Error(`the service exited with ${code} before listening:\n${output}`))
    }
    const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
      child.kill(signal)
      return exited
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (started) return
      const lines = output.split('\n').filter((l) => l.includes('"msg":"listening"'))
      if (lines.length < listening) return
      started = true
      clearTimeout(timer)
      child.off('exit', onExit)
      const url = (JSON.parse(lines[0]!) as { url: string }).url
      resolve({
        url,
        child,
        output: () => output,
        exited,
        stop,
        get: (path, key) =>
          fetch(`${url}${path}`, key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } }),
        close: () => stop(),
      })
    })
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', onExit)
  })
