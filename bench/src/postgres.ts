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
    // UTF8 whatever the server's default: the service refuses another encoding.
    await client.query(
      `CREATE DATABASE ${quote(name)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
    )
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

/**
 * What pg_stat_activity showed: `samples` polls; `seen`, the polls in which at least one busy
 * connection was in each wait; `busy`, the busy connections counted over all polls (one sample each);
 * `busyIn`, those of them in each wait.
 */
export type Waits = {
  readonly samples: number
  readonly seen: Readonly<Record<string, number>>
  readonly busy: number
  readonly busyIn: Readonly<Record<string, number>>
}

export const NO_WAITS: Waits = { samples: 0, seen: {}, busy: 0, busyIn: {} }

/** Two samplings as one. */
export const addWaits = (a: Waits, b: Waits): Waits => {
  const sum = (x: Readonly<Record<string, number>>, y: Readonly<Record<string, number>>) => {
    const out = { ...x }
    for (const [key, n] of Object.entries(y)) out[key] = (out[key] ?? 0) + n
    return out
  }
  return {
    samples: a.samples + b.samples,
    seen: sum(a.seen, b.seen),
    busy: a.busy + b.busy,
    busyIn: sum(a.busyIn, b.busyIn),
  }
}

/** The share (0..1) of busy connection samples that waited on a heavyweight lock (wait_event_type 'Lock'). */
export const lockShare = (w: Waits): number =>
  w.busy === 0
    ? 0
    : Object.entries(w.busyIn)
        .filter(([wait]) => wait.startsWith('Lock:'))
        .reduce((sum, [, n]) => sum + n, 0) / w.busy

/**
 * Polls pg_stat_activity every `everyMs` until stopped: the database's active connections (other
 * than its own), by wait event (such as `Lock:advisory` or `IO:WALSync`), or running (`CPU`).
 */
export const sampleWaits = (url: string, everyMs = 20): { readonly stop: () => Promise<Waits> } => {
  const seen: Record<string, number> = {}
  const busyIn: Record<string, number> = {}
  let samples = 0
  let busy = 0
  let running = true
  const done = withClient(url, async (client) => {
    while (running) {
      const { rows } = await client.query<{ wait: string; n: number }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS wait, count(*)::int AS n
         FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
         GROUP BY 1`,
      )
      samples++
      for (const { wait, n } of rows) {
        seen[wait] = (seen[wait] ?? 0) + 1
        busyIn[wait] = (busyIn[wait] ?? 0) + n
        busy += n
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })
  return {
    stop: async () => {
      running = false
      await done
      return { samples, seen, busy, busyIn }
    },
  }
}

/** A setting of the server, as SHOW prints it. */
export const show = (url: string, setting: string): Promise<string> =>
  withClient(url, async (client) => {
    const { rows } = await client.query<Record<string, string>>(`SHOW ${setting}`)
    return Object.values(rows[0] ?? {})[0] ?? 'unknown'
  })
