import { spawn, type StdioOptions } from 'node:child_process'
import { MAIN } from './child-service.js'

/** How the built bin ended, and what it wrote. */
export type BinRun = { readonly code: number | null; readonly stdout: string; readonly stderr: string }

/**
 * Runs the built bin with `env` (and PATH, LOG_FORMAT=json) alone, to its end. `stdout` may be a file
 * descriptor to write to instead of a pipe (`/dev/full`), or `closed`: a pipe nobody reads, whose writes
 * fail with EPIPE. `stdout` is then empty. `timeoutMs`: a SIGTERM then, for a run that might go on for ever.
 */
export const runBin = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  stdout?: number | 'closed',
  timeoutMs?: number,
): Promise<BinRun> =>
  new Promise((resolve, reject) => {
    const stdio: StdioOptions = ['ignore', typeof stdout === 'number' ? stdout : 'pipe', 'pipe']
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
      stdio,
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    })
    // This process held the pipe's only read end.
    if (stdout === 'closed') child.stdout!.destroy()
    let [out, err] = ['', '']
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout: out, stderr: err }))
  })
