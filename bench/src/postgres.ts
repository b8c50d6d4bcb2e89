import pg from 'pg'

/** The admin connection the benchmark makes its own database with, unless BENCH_DATABASE_URL says otherwise. */
export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres'

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/** The URL of database `name` on the server of `url`. */
export const databaseUrl = (url: string, name: string): string => {
  const u = new URL(url)
  u.pathname = `/${encodeURIComponent(name)}`
  return u.toString()
}

const withClient = async <A>(url: string, work: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Drops database `name` if a run left it behind, creates it empty, and tells the server's version. */
export const createDatabase = (adminUrl: string, name: string): Promise<string> =>
  withClient(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${quote(name)}`)
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version')
    return rows[0]?.server_version ?? 'unknown'
  })

/** Drops database `name`, whoever is still connected. */
export const dropDatabase = (adminUrl: string, name: string): Promise<void> =>
  withClient(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`)
  })

/**
 * Empties `pets` and fills it with pets 1..count in one INSERT … SELECT generate_series (the same
 * pets as `seedPet`), then VACUUM ANALYZE, so the planner and the visibility map know the table.
 */
export const seedPets = (url: string, count: number): Promise<void> =>
  withClient(url, async (client) => {
    await client.query('TRUNCATE pets RESTART IDENTITY CASCADE')
    await client.query(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'pet ' || g, 1 + g % 50, (ARRAY['available', 'pending', 'sold'])[1 + g % 3]
       FROM generate_series(1, $1::int) AS g`,
      [count],
    )
    await client.query('VACUUM ANALYZE pets')
  })

/** A statement of the service, with the values to explain it with. */
export type Explained = {
  readonly title: string
  readonly sql: string
  readonly values: ReadonlyArray<unknown>
}

/** EXPLAIN (ANALYZE, BUFFERS) of each statement, as PostgreSQL prints it. */
export const explain = (url: string, statements: ReadonlyArray<Explained>): Promise<ReadonlyArray<string>> =>
  withClient(url, async (client) => {
    const plans: Array<string> = []
    for (const { sql, values } of statements) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, [
        ...values,
      ])
      plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'))
    }
    return plans
  })
