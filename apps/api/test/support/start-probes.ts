// What a test reads of a start that its log cannot show (a log nobody reads, say): a listener, and the
// sessions of its database.
import { createConnection } from 'node:net'

/** A connection to the database (a pg client). */
type Queryable = { query: (sql: string) => Promise<{ rowCount: number | null }> }

/** Whether something accepts connections on 127.0.0.1:`port`. */
export const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

const count = async (client: Queryable, sql: string) => (await client.query(sql)).rowCount ?? 0

/** The client sessions of the database but `client`'s own (not an autovacuum worker's). */
export const sessionsBeside = (client: Queryable) =>
  count(
    client,
    'SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  )

/** Whether a session of the database tries the migration lock (migration-lock.ts polls it). */
export const waitingForLock = async (client: Queryable) =>
  (await count(
    client,
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_try_advisory_lock%'",
  )) > 0
