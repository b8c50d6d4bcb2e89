import pg from 'pg'
import type { Listing, NewPet, Pet, Status } from './contract.js'

/** Where a baseline keeps its pets: in memory, or in PostgreSQL with the service's SQL. */
export interface PetStore {
  /** At most `limit` pets with an id above `after`, in id order. */
  readonly list: (listing: Listing) => Promise<ReadonlyArray<Pet>>
  readonly add: (pet: NewPet) => Promise<Pet>
  readonly get: (id: number) => Promise<Pet | undefined>
  readonly close: () => Promise<void>
}

/** The algorithm of the service's memory adapter: an array in id order and a map by id. */
export const createMemoryStore = (): PetStore => {
  const pets: Array<Pet> = []
  const byId = new Map<number, Pet>()
  const firstAbove = (after: number): number => {
    let low = 0
    let high = pets.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (pets[mid]!.id <= after) low = mid + 1
      else high = mid
    }
    return low
  }
  return {
    list: async ({ limit, after, status }) => {
      const start = firstAbove(after)
      if (status === undefined) return pets.slice(start, start + limit)
      const found: Array<Pet> = []
      for (let i = start; i < pets.length && found.length < limit; i++)
        if (pets[i]!.status === status) found.push(pets[i]!)
      return found
    },
    add: async (pet) => {
      const added = { id: pets.length + 1, ...pet }
      pets.push(added)
      byId.set(added.id, added)
      return added
    },
    get: async (id) => byId.get(id),
    close: async () => {},
  }
}

type Row = { id: string; name: string; category_id: string; status: Status }

const toPet = (row: Row): Pet => {
  const id = Number(row.id)
  const categoryId = Number(row.category_id)
  if (!Number.isSafeInteger(id) || !Number.isSafeInteger(categoryId))
    throw new Error(`pet ${row.id} is out of range`)
  return { id, name: row.name, categoryId, status: row.status }
}

const COLUMNS = '"id", "name", "category_id", "status"'
/** The key of the service's transaction-scoped lock, which makes ids visible in the order they were given. */
export const ORDERING_LOCK = 4242000002
/** The statements the service's PostgreSQL adapter runs: those kysely compiles, and its insert. */
export const SQL = {
  list: `select ${COLUMNS} from "pets" where "id" > $1 order by "id" limit $2`,
  listByStatus: `select ${COLUMNS} from "pets" where "status" = $1 and "id" > $2 order by "id" limit $3`,
  find: `select ${COLUMNS} from "pets" where "id" = $1`,
  // The service takes a transaction-scoped lock so that ids become visible in order (see its
  // repository): the same statement, the same lock.
  add:
    `WITH ordered AS (SELECT pg_advisory_xact_lock(${ORDERING_LOCK})) INSERT INTO pets (name, category_id, status) ` +
    'SELECT $1, $2::bigint, $3 FROM ordered RETURNING id, name, category_id, status',
} as const

/** The same SQL as the service, on a pool configured as the service configures its own. */
export const createPostgresStore = (connectionString: string): PetStore => {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    connectionTimeoutMillis: 2000,
    statement_timeout: 5000,
    query_timeout: 6000,
    keepAlive: true,
  })
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  return {
    list: async ({ limit, after, status }) => {
      const { rows } =
        status === undefined
          ? await pool.query<Row>(SQL.list, [String(after), limit])
          : await pool.query<Row>(SQL.listByStatus, [status, String(after), limit])
      return rows.map(toPet)
    },
    add: async ({ name, categoryId, status }) => {
      const { rows } = await pool.query<Row>(SQL.add, [name, String(categoryId), status])
      return toPet(rows[0]!)
    },
    get: async (id) => {
      const { rows } = await pool.query<Row>(SQL.find, [String(id)])
      return rows[0] === undefined ? undefined : toPet(rows[0])
    },
    close: () => pool.end(),
  }
}

/** The store a baseline process is told to use by its environment. */
export const storeFromEnv = (env: NodeJS.ProcessEnv): PetStore =>
  env['DATABASE_URL'] ? createPostgresStore(env['DATABASE_URL']) : createMemoryStore()
