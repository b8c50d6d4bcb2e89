import pg from 'pg'
import { redact } from './with-admin-client.js'

/** A PostgreSQL server for tests: where it answers, and how to stop it when the tests started it. */
export type TestServer = { readonly url: string; readonly source: string; readonly stop: () => Promise<void> }

const IMAGE = 'postgres:15-alpine'

const HOW_TO_PROVIDE = [
  'Provide one of:',
  '- set TEST_DATABASE_URL, e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test',
  `- start a Docker engine; the tests then run ${IMAGE} with testcontainers`,
  '- start the local server: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
].join('\n')

// An AggregateError (every address of a host refused) has no message of its own, only a code.
const messageOf = (error: unknown): string =>
  error instanceof Error
    ? error.message || String((error as { code?: unknown }).code ?? error.name)
    : String(error)

/** Resolves to undefined when a server (PostgreSQL or a pooler) answers at `url`, else to why not. */
export const whyNot = async (url: string, timeoutMs = 3000): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return messageOf(error)
  } finally {
    await client.end().catch(() => {})
  }
}

const fromDocker = async (): Promise<TestServer | string> => {
  try {
    // An optional peer: loaded only here, so that hosts without Docker need not install it.
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
    const container = await new PostgreSqlContainer(IMAGE).start()
    return {
      url: container.getConnectionUri(),
      source: `testcontainers (${IMAGE})`,
      stop: () => container.stop().then(() => {}),
    }
  } catch (error) {
    return messageOf(error)
  }
}

/** The conventional local server: the standard PG* variables where set, else postgres@127.0.0.1:5432. */
const localUrl = (env: NodeJS.ProcessEnv): string => {
  const host = env['PGHOST'] || '127.0.0.1'
  const user = encodeURIComponent(env['PGUSER'] || 'postgres')
  const password = env['PGPASSWORD'] ? `:${encodeURIComponent(env['PGPASSWORD'])}` : ''
  const port = env['PGPORT'] || '5432'
  const database = encodeURIComponent(env['PGDATABASE'] || 'postgres')
  // A PGHOST that is a directory names a Unix socket, which a URL carries as ?host=.
  return host.startsWith('/')
    ? `postgres://${user}${password}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`
    : `postgres://${user}${password}@${host.includes(':') ? `[${host}]` : host}:${port}/${database}`
}

/**
 * Finds a PostgreSQL server for tests: TEST_DATABASE_URL when set, else a testcontainers container
 * when a Docker engine answers, else the local server. Throws, saying how to provide one, when none answers.
 */
export const findTestServer = async (env: NodeJS.ProcessEnv = process.env): Promise<TestServer> => {
  const given = env['TEST_DATABASE_URL']
  if (given !== undefined && given !== '') {
    const problem = await whyNot(given)
    if (problem === undefined) return { url: given, source: 'TEST_DATABASE_URL', stop: async () => {} }
    throw new Error(
      `TEST_DATABASE_URL is ${redact(given)}, but no PostgreSQL answers there: ${problem}\n${HOW_TO_PROVIDE}`,
    )
  }
  const docker = await fromDocker()
  if (typeof docker !== 'string') return docker
  const local = localUrl(env)
  const problem = await whyNot(local)
  if (problem === undefined) return { url: local, source: 'the local server', stop: async () => {} }
  throw new Error(
    [
      'No PostgreSQL server for the tests. Tried:',
      '- TEST_DATABASE_URL: not set',
      `- Docker, through testcontainers: ${docker}`,
      `- the local server at ${redact(local)}: ${problem}`,
      HOW_TO_PROVIDE,
    ].join('\n'),
  )
}
