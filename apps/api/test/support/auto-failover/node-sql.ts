import { createPostgresDatabase } from '@pets/adapters-postgres'

/** A PostgreSQL server of the formation: where it listens, and a URL to one of its databases. */
export type PostgresAddress = { readonly host: string; readonly port: number }

/** `postgres://postgres@host:port/database`: the formation trusts every local connection. */
export const urlOf = (at: PostgresAddress, database = 'app'): string =>
  `postgres://postgres@${at.host}:${at.port}/${database}`

/** The SQLSTATE of a failed statement (`25006`: read-only), or undefined for a failure without one. */
export const sqlstateOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/**
 * Runs one statement on a connection of its own, which is destroyed if no answer comes within
 * `timeoutMs`. A client-side bound on purpose: statement_timeout would cancel a commit's wait for
 * the synchronous standby, and PostgreSQL then reports a success that no standby has.
 */
export const queryOnce = async <R = Record<string, unknown>>(
  url: string,
  text: string,
  values: ReadonlyArray<unknown> = [],
  timeoutMs = 2_000,
): Promise<Array<R>> => {
  // The service's own pool factory: apps/api reaches pg only through @pets/adapters-postgres.
  const database = createPostgresDatabase({
    connectionString: url,
    poolSize: 1,
    connectionTimeoutMs: timeoutMs,
    sendSessionSettings: false,
    pooler: 'none',
  })
  let timer: NodeJS.Timeout | undefined
  try {
    const client = await database.pool.connect()
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      })
      const result = await Promise.race([client.query(text, [...values]), deadline])
      client.release()
      return result.rows as Array<R>
    } catch (error) {
      client.release(true)
      throw error
    }
  } finally {
    clearTimeout(timer)
    // Its close() ends kysely, which never opened the pool: the pool is ended here, or its
    // connections would idle on for 10 s, enough to exhaust max_connections under probes.
    await database.pool.end()
  }
}

/** Whether the server takes writes, as libpq's target_session_attrs=read-write decides it. */
export const acceptsWrites = async (at: PostgresAddress, timeoutMs = 500): Promise<boolean> => {
  try {
    const [row] = await queryOnce<{ rw: boolean }>(
      urlOf(at, 'postgres'),
      "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS rw",
      [],
      timeoutMs,
    )
    return row?.rw === true
  } catch {
    return false
  }
}
