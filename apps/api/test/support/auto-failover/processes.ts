import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, readdirSync, readFileSync } from 'node:fs'

const asRoot = process.getuid?.() === 0
const postgresIds = () => ({
  uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
  gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
})

/** Gives `path` to the postgres user when this process is root: PostgreSQL and pg_autoctl refuse root. */
export const giveToPostgres = (path: string): void => {
  if (!asRoot) return
  const { uid, gid } = postgresIds()
  chownSync(path, uid, gid)
}

/**
 * Starts `command`, as the postgres user when this process is root (setpriv execs, so the pid is
 * the program's own), in a process group of its own.
 */
export const spawnAsPostgres = (
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  options: { readonly detached?: boolean } = {},
): ChildProcess =>
  spawn(
    asRoot ? 'setpriv' : command,
    asRoot ? ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args] : [...args],
    { env, detached: options.detached ?? true, stdio: ['ignore', 'pipe', 'pipe'] },
  )

/** Runs `command` to its end as the postgres user; rejects with its output when it fails or outlives `timeoutMs`. */
export const runAsPostgres = (
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawnAsPostgres(command, args, env, { detached: false })
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(output)
      else reject(new Error(`${command} ${args.join(' ')} ended with ${code ?? signal}:\n${output}`))
    })
  })

/** Each process's parent, read from /proc; `comm` may hold spaces and parentheses, so parse after its last ')'. */
const parents = (): Map<number, number> => {
  const map = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] !== 'Z') map.set(Number(entry), Number(fields[1]))
    } catch {
      // gone while we looked
    }
  }
  return map
}

/** The pids of every living process below `pid`. */
export const descendantsOf = (pid: number): Array<number> => {
  const map = parents()
  const found: Array<number> = []
  const visit = (parent: number) => {
    for (const [child, ppid] of map)
      if (ppid === parent) {
        found.push(child)
        visit(child)
      }
  }
  visit(pid)
  return found
}

/** Whether `pid` is a living process (a zombie is not). */
export const isAlive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** Sends `signal` to each pid that still lives. */
export const signalEach = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids)
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
}

/** Waits until none of `pids` lives, for `timeoutMs` at most; resolves with those still alive. */
export const waitGone = async (pids: ReadonlyArray<number>, timeoutMs: number): Promise<Array<number>> => {
  const deadline = Date.now() + timeoutMs
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  return pids.filter(isAlive)
}

/** The pids of living processes whose command line mentions `text`: what a directory's programs left. */
export const processesMentioning = (text: string): Array<number> =>
  [...parents().keys()].filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)
    } catch {
      return false
    }
  })

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export { freePort } from '@pets/adapters-postgres/testing'
