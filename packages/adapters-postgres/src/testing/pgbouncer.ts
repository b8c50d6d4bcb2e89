import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { whyNot } from './find-test-server.js'
import { freePort } from './free-port.js'
import { redact } from './with-admin-client.js'

/** A PgBouncer in front of the test PostgreSQL, and how to reach a database through it. */
export type TestPgBouncer = {
  /** Where it listens, with the test server's user: `postgres://user@127.0.0.1:port/postgres`. */
  readonly url: string
  /** `databaseUrl` (a database on the test server) as reached through this PgBouncer. */
  readonly through: (databaseUrl: string) => string
  /** Where it came from: `TEST_PGBOUNCER_URL`, or the binary it started. */
  readonly source: string
  /** Stops it when this helper started it; nothing for TEST_PGBOUNCER_URL. */
  readonly stop: () => Promise<void>
}

/** How to start one. */
export type PgBouncerOptions = {
  /** Server connections per database and user (`default_pool_size`); 20 unless given. */
  readonly poolSize?: number | undefined
  /** Where it sends the connections, when not the test server itself (a TCP proxy in front of it, say). */
  readonly serverHost?: string | undefined
  readonly serverPort?: number | undefined
  /** Ignores TEST_PGBOUNCER_URL and starts one (a test that needs its own server address). */
  readonly ownProcess?: boolean | undefined
}

// Debian's, unless PGBOUNCER_BIN names another.
const binaryOf = (env: NodeJS.ProcessEnv) => env['PGBOUNCER_BIN'] ?? '/usr/sbin/pgbouncer'

/** What to do when no PgBouncer can be had: the lines a test that needs one fails with. */
export const HOW_TO_PROVIDE_PGBOUNCER = [
  'Provide one of:',
  "- install Debian's pgbouncer: apt-get install -y pgbouncer (bash scripts/bootstrap.sh setup-tests does it);",
  '  the tests start it themselves, in transaction mode, on a free port (as the postgres user when run as root)',
  '- set TEST_PGBOUNCER_URL to a PgBouncer in transaction mode in front of the test PostgreSQL, whose',
  '  [databases] has the fallback entry `* = host=… port=…`, e.g. TEST_PGBOUNCER_URL=postgres://postgres@127.0.0.1:6432/postgres',
].join('\n')

/** `databaseUrl` with the host and port of `bouncerUrl`: the same database and user, through it. */
const throughBouncer = (bouncerUrl: string) => (databaseUrl: string) => {
  const target = new URL(databaseUrl)
  const bouncer = new URL(bouncerUrl)
  target.hostname = bouncer.hostname
  target.port = bouncer.port
  target.searchParams.delete('host')
  return target.toString()
}

const ini = (o: { port: number; host: string; serverPort: number; dir: string; poolSize: number }) =>
  `[databases]
* = host=${o.host} port=${o.serverPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${o.port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(o.dir, 'userlist.txt')}
pool_mode = transaction
default_pool_size = ${o.poolSize}
max_client_conn = 400
; What the service's deployment needs too (README, "Scaling out"): back within a second after the
; server was away, and a failed server connection attempt given up after 2 s.
server_login_retry = 1
server_connect_timeout = 2
; No "options" here: the service copes with PgBouncer refusing it.
ignore_startup_parameters = extra_float_digits
logfile = ${join(o.dir, 'pgbouncer.log')}
`

const startOwn = async (
  serverUrl: string,
  options: PgBouncerOptions,
  binary: string,
): Promise<TestPgBouncer> => {
  if (!existsSync(binary)) throw new Error(`PgBouncer is not installed: ${binary} does not exist.`)
  const server = new URL(serverUrl)
  const user = decodeURIComponent(server.username || 'postgres')
  const password = decodeURIComponent(server.password)
  const dir = mkdtempSync(join(tmpdir(), 'pets-pgbouncer-'))
  const port = await freePort()
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password.replace(/"/g, '""')}"\n`)
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    ini({
      port,
      dir,
      host: options.serverHost ?? (server.searchParams.get('host') || server.hostname || '127.0.0.1'),
      serverPort: options.serverPort ?? Number(server.port || 5432),
      poolSize: options.poolSize ?? 20,
    }),
  )
  // PgBouncer refuses to run as root: then it runs as the postgres user, which must read its files.
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, file), uid, gid)
  }
  const [command, args] = asRoot
    ? [
        'setpriv',
        ['--reuid=postgres', '--regid=postgres', '--init-groups', binary, join(dir, 'pgbouncer.ini')],
      ]
    : [binary, [join(dir, 'pgbouncer.ini')]]
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // A test process that ends without stopping it leaves no PgBouncer behind.
  const orphan = () => void child.kill('SIGTERM')
  process.once('exit', orphan)
  const logOf = () => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8')
    } catch {
      return ''
    }
  }
  const stop = async () => {
    process.off('exit', orphan)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  const url = `postgres://${encodeURIComponent(user)}${password === '' ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/${server.pathname.slice(1) || 'postgres'}`
  const deadline = Date.now() + 15_000
  let why: string | undefined = 'not tried'
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break
    why = await whyNot(url, 2000)
    if (why === undefined)
      return { url, through: throughBouncer(url), source: `${binary} (port ${port})`, stop }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const log = `${output}${logOf()}`.trim()
  await stop()
  throw new Error(
    `PgBouncer (${binary}) did not answer on 127.0.0.1:${port}: ${child.exitCode === null ? why : `it exited with ${child.exitCode}`}` +
      (log === '' ? '' : `\nIts output:\n${log}`),
  )
}

/**
 * A PgBouncer in transaction mode in front of the test PostgreSQL: TEST_PGBOUNCER_URL when set (unless
 * `ownProcess`), else Debian's pgbouncer started here on a free port. Throws, saying how to provide one.
 */
export const startTestPgBouncer = async (
  serverUrl: string,
  options: PgBouncerOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestPgBouncer> => {
  const given = env['TEST_PGBOUNCER_URL']
  if (given !== undefined && given !== '' && options.ownProcess !== true) {
    const why = await whyNot(given, 2000)
    if (why === undefined)
      return {
        url: given,
        through: throughBouncer(given),
        source: 'TEST_PGBOUNCER_URL',
        stop: async () => {},
      }
    throw new Error(
      `TEST_PGBOUNCER_URL is ${redact(given)}, but no PgBouncer answers there: ${why}\n${HOW_TO_PROVIDE_PGBOUNCER}`,
    )
  }
  try {
    return await startOwn(serverUrl, options, binaryOf(env))
  } catch (error) {
    throw new Error(
      `No PgBouncer for the tests: ${error instanceof Error ? error.message : String(error)}\n${HOW_TO_PROVIDE_PGBOUNCER}`,
      { cause: error },
    )
  }
}
