import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { descendantsOf, isAlive, signalEach, spawnAsPostgres, waitGone } from './processes.js'

/** One `pg_autoctl create … --run`: its services, the PostgreSQL they run, and what it printed. */
export type AutoctlProcess = {
  readonly pgdata: string
  readonly output: () => string
  /** Whether pg_autoctl still runs. */
  readonly running: () => boolean
  /**
   * SIGKILLs pg_autoctl and the postmaster at once; the backends end as after any postmaster
   * crash, and are SIGKILLed if still there after 5 s. Nothing restarts it.
   */
  readonly kill: () => Promise<void>
  /** Ends it for good: pg_autoctl SIGKILLed, PostgreSQL shut down at once (SIGQUIT), leftovers SIGKILLed. */
  readonly stop: () => Promise<void>
  /** SIGKILLs its process group, synchronously: for a test process that exits without `stop`. */
  readonly killNow: () => void
}

const MAX_OUTPUT = 200_000

// postmaster.pid: line 1 the pid, line 7 the System V shared memory key and id.
const postmasterOf = (pgdata: string): { pid: number; shmid: string | undefined } | undefined => {
  try {
    const lines = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')
    const pid = Number(lines[0])
    return isAlive(pid) ? { pid, shmid: lines[6]?.trim().split(/\s+/)[1] } : undefined
  } catch {
    return undefined
  }
}

/** Starts `pg_autoctl args…` as the postgres user, in a process group of its own. */
export const startAutoctl = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  pgdata: string,
): AutoctlProcess => {
  const child = spawnAsPostgres('pg_autoctl', args, env)
  const pid = child.pid ?? -1
  let output = ''
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-MAX_OUTPUT))
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  child.on('error', (error) => keep(Buffer.from(`could not start pg_autoctl: ${error.message}\n`)))
  // A postmaster that was SIGKILLed leaves its small System V segment behind: ours to remove.
  const leaked = new Set<string>()
  const parts = () => {
    const postmaster = postmasterOf(pgdata)
    const backends = postmaster === undefined ? [] : descendantsOf(postmaster.pid)
    const services = [pid, ...descendantsOf(pid)].filter(
      (p) => p !== postmaster?.pid && !backends.includes(p),
    )
    return { postmaster, backends, services }
  }
  const kill = async () => {
    const { postmaster, backends, services } = parts()
    signalEach([...services, ...(postmaster === undefined ? [] : [postmaster.pid])], 'SIGKILL')
    if (postmaster?.shmid !== undefined) leaked.add(postmaster.shmid)
    signalEach(await waitGone([...services, ...backends], 5_000), 'SIGKILL')
  }
  const stop = async () => {
    const { postmaster, backends, services } = parts()
    // pg_autoctl first, or it would start PostgreSQL again.
    signalEach(services, 'SIGKILL')
    if (postmaster !== undefined) {
      signalEach([postmaster.pid], 'SIGQUIT')
      if ((await waitGone([postmaster.pid], 5_000)).length > 0 && postmaster.shmid !== undefined)
        leaked.add(postmaster.shmid)
    }
    const all = [...services, ...backends, ...(postmaster === undefined ? [] : [postmaster.pid])]
    signalEach(await waitGone(all, 5_000), 'SIGKILL')
    await waitGone(all, 5_000)
    for (const shmid of leaked)
      try {
        execFileSync('ipcrm', ['-m', shmid], { stdio: 'ignore' })
      } catch {
        // removed already
      }
  }
  return {
    pgdata,
    output: () => output,
    running: () => isAlive(pid),
    kill,
    stop,
    killNow: () => signalEach([-pid], 'SIGKILL'),
  }
}
