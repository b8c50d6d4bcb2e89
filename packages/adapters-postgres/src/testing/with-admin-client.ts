import pg from 'pg'

/** Quotes a name for SQL, such as a database name in CREATE DATABASE. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`

/** The URL of another database on the same server as `url`. */
export const databaseUrl = (url: string, database: string): string => {
  const u = new URL(url)
  u.pathname = `/${encodeURIComponent(database)}`
  return u.toString()
}

/** `url` with its password hidden, fit for a message. */
export const redact = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return '(a URL that does not parse)'
  }
}

/** Runs `work` on one short-lived connection to `url`, outside any pool, and closes it. */
export const withAdminClient = async <A>(
  url: string,
  work: (client: pg.Client) => Promise<A>,
): Promise<A> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  client.on('error', () => {}) // a failed query rejects anyway; only a stray event would crash us
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Drops the database `name` and every database whose name starts with `name_`, whoever is connected. */
export const dropDatabases = (url: string, name: string): Promise<void> =>
  withAdminClient(url, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $2) ORDER BY datname DESC',
      [name, `${name}_`],
    )
    for (const { datname } of rows)
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`)
  })
