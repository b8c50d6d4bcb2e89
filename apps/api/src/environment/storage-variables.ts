import { boolean, integer, oneOf } from './codecs.js'
import { postgresUrl } from './url-codecs.js'
import { optional, variable, type Get } from './variable.js'

/** DATABASE_URL: where pets and stored keys live. */
export const DATABASE_URL = optional({
  name: 'DATABASE_URL',
  codec: postgresUrl,
  unset: 'unset',
  production: {
    rule: 'required, and `STORAGE=memory` refused',
    refuse: (_url, get) =>
      storageKind(get) === 'postgres'
        ? []
        : ['APP_ENV=production needs PostgreSQL: set DATABASE_URL (and not STORAGE=memory)'],
  },
  meaning:
    'PostgreSQL connection URI, as libpq reads it (several hosts, `target_session_attrs`: see "A database failover"); when set, pets are kept there',
})

/** STORAGE: `memory` even when DATABASE_URL is set. */
export const STORAGE = optional({
  name: 'STORAGE',
  codec: oneOf(['memory', 'postgres'] as const),
  unset: 'from `DATABASE_URL`',
  requires: (storage, get) =>
    storage === 'postgres' && get(DATABASE_URL) === undefined ? ['STORAGE=postgres needs DATABASE_URL'] : [],
  meaning: '`memory` forces the in-memory store even when `DATABASE_URL` is set',
})

/** Where pets live, by DATABASE_URL and STORAGE. */
export const storageKind = (get: Get): 'memory' | 'postgres' =>
  get(STORAGE) ?? (get(DATABASE_URL) === undefined ? 'memory' : 'postgres')

export const DATABASE_DIRECT_URL = optional({
  name: 'DATABASE_DIRECT_URL',
  codec: postgresUrl,
  unset: 'unset: `DATABASE_URL`',
  // Alone it would be ignored, and the service would keep pets in memory without a word.
  requires: (url, get) =>
    url !== undefined && get(DATABASE_URL) === undefined
      ? ['DATABASE_DIRECT_URL needs DATABASE_URL (where requests go)']
      : [],
  meaning:
    'PostgreSQL itself, not through a transaction pooler, for what needs a session: the migrations (at start ' +
    'and `migrate`), the `LISTEN` that hears of changed API keys, and the `keys` commands. Set it whenever ' +
    '`DATABASE_URL` points at PgBouncer (see "Scaling out")',
})

export const DATABASE_POOL_SIZE = variable({
  name: 'DATABASE_POOL_SIZE',
  codec: integer(1, 1000),
  default: { value: 10 },
  meaning: 'Connections in the PostgreSQL pool',
})

export const DATABASE_MAX_LIFETIME_S = variable({
  name: 'DATABASE_MAX_LIFETIME_S',
  codec: integer(0, 86400),
  default: { value: 300 },
  meaning:
    "Seconds a pooled connection lives at most, 0 for no limit: a balancer's or DNS's new answer (a failover behind one address) is followed even when no error says so",
})

// The four timeouts are sized for queries that are index lookups of well under a millisecond: a
// request that cannot reach the database answers 503 within about 2 s (README, "Operating").
export const DATABASE_CONNECT_TIMEOUT_MS = variable({
  name: 'DATABASE_CONNECT_TIMEOUT_MS',
  codec: integer(1, 600000),
  default: { value: 1000 },
  meaning:
    'How long a request waits for a connection, a free one of the pool or a new one, before answering 503',
})

export const DATABASE_STATEMENT_TIMEOUT_MS = variable({
  name: 'DATABASE_STATEMENT_TIMEOUT_MS',
  codec: integer(1, 600000),
  default: { value: 750 },
  meaning:
    'How long one statement may run before PostgreSQL cancels it (`statement_timeout`); the service gives up ' +
    '250 ms later on a server that does not answer, and destroys that connection. Either way: 503',
})

export const DATABASE_LOCK_TIMEOUT_MS = variable({
  name: 'DATABASE_LOCK_TIMEOUT_MS',
  codec: integer(0, 600000),
  default: { value: 500 },
  meaning:
    'How long a statement waits for a lock (`lock_timeout`), such as an insert waiting for an earlier write, ' +
    'before answering 503; `0`: no limit',
})

export const DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS = variable({
  name: 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
  codec: integer(0, 600000),
  default: { value: 2000 },
  meaning:
    'After how long PostgreSQL ends a session that sits in an open transaction waiting for its client ' +
    '(`idle_in_transaction_session_timeout`), releasing its locks; `0`: no limit',
})

export const MIGRATE_ON_START = variable({
  name: 'MIGRATE_ON_START',
  codec: boolean,
  default: { value: true },
  meaning:
    'Run the migrations at start, under an advisory lock; `false`: only check that none is pending, and refuse to start if one is',
})

// Releases before migration 0008 list pets without reading insert intents: beside them, inserts that commit
// out of id order (this release's, in parallel) would make their walks of `next` links miss pets.
export const PET_INSERTS_ALONE = variable({
  name: 'PET_INSERTS_ALONE',
  codec: boolean,
  default: { value: false },
  meaning:
    '`true`: every insert of pets takes the ordering lock alone, as releases before migration `0008` did, ' +
    'instead of inserting in parallel behind intents: while instances of such a release still serve (a rolling ' +
    'upgrade from one, see "Storage, migrations and API keys"); unset it once none does',
})

/** The variables of the storage, in the README's order. */
export const STORAGE_VARIABLES = [
  DATABASE_URL,
  STORAGE,
  DATABASE_DIRECT_URL,
  DATABASE_POOL_SIZE,
  DATABASE_MAX_LIFETIME_S,
  DATABASE_CONNECT_TIMEOUT_MS,
  DATABASE_STATEMENT_TIMEOUT_MS,
  DATABASE_LOCK_TIMEOUT_MS,
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  MIGRATE_ON_START,
  PET_INSERTS_ALONE,
] as const
