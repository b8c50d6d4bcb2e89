import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The built entry point, as `pnpm start` and a container run it. */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))

export type SpawnedService = {
  readonly child: ChildProcess
  readonly url: string
  /** Everything the process wrote so far, stdout and stderr. */
  readonly output: () => string
  /** Sends a signal and resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** Starts the built service as a real process on a free port and waits for its "listening" line. */
export const spawnService = (env: Record<string, string>, timeoutMs = 10_000): Promise<SpawnedService> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the service did not start within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const line = output.split('\n').find((l) => l.includes('"msg":"listening"'))
      if (line === undefined) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stdout?.on('data', (more: Buffer) => (output += more.toString()))
      resolve({
        child,
        url: (JSON.parse(line) as { url: string }).url,
        output: () => output,
        stop: (signal = 'SIGTERM') => {
          child.kill(signal)
          return exited
        },
      })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the service exited with ${code} before listening:\n${output}`))
    })
  })
