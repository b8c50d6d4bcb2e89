import type { ApiKeyId, ApiKeyRecord, ApiKeyStore } from '@pets/domain'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely } from 'kysely'
import { createHash, randomBytes } from 'node:crypto'
import type { ApiKeyRow, Database } from './schema.js'
import { tryStore } from './unavailable.js'

/** Options of the PostgreSQL key store. */
export type PostgresApiKeyStoreOptions = {
  /** The clock that dates issues, revocations and uses; the machine's unless given. */
  readonly now?: () => Date
}

const sha256Hex = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex')
const generateApiKey = (): string => randomBytes(32).toString('base64url')

// Ids are int8 as decimal strings; anything else names no key, and must not reach the SQL as a
// value PostgreSQL would refuse with an error.
const INT8_MAX = 9223372036854775807n
const isKeyId = (id: ApiKeyId): boolean => /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= INT8_MAX

// last_used_at is written at most this often per key, so a busy key costs no write per request.
const TOUCH_EVERY_MS = 60_000

const recordColumns = ['id', 'name', 'created_at', 'revoked_at', 'last_used_at'] as const
const toRecord = (row: Pick<ApiKeyRow, (typeof recordColumns)[number]>): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
})

/**
 * An API-key store on PostgreSQL. It keeps only each key's SHA-256 digest, reads the table on every
 * call (a revocation holds from the next call on), and authenticates in one round trip.
 */
export const createPostgresApiKeyStore = (
  db: Kysely<Database>,
  options: PostgresApiKeyStoreOptions = {},
): ApiKeyStore => {
  const now = options.now ?? (() => new Date())
  return {
    authenticate: (apiKey) => {
      const at = now()
      // Looked up by digest, which tells a timing attacker nothing about the key. The CTE's
      // update runs whether or not the outer query reads it, and writes only a stale last_used_at.
      const query = db
        .with('found', (q) =>
          q
            .selectFrom('api_keys')
            .select(['id', 'name', 'last_used_at'])
            .where('digest', '=', sha256Hex(apiKey))
            .where('revoked_at', 'is', null),
        )
        .with('touched', (q) =>
          q
            .updateTable('api_keys')
            .set({ last_used_at: at })
            .from('found')
            .whereRef('api_keys.id', '=', 'found.id')
            .where((eb) =>
              eb.or([
                eb('found.last_used_at', 'is', null),
                eb('found.last_used_at', '<', new Date(at.getTime() - TOUCH_EVERY_MS)),
              ]),
            )
            .returning('api_keys.id'),
        )
        .selectFrom('found')
        .select(['id', 'name'])
      return pipe(
        tryStore(() => query.executeTakeFirst()),
        TE.map((row) =>
          pipe(
            O.fromNullable(row),
            O.map(({ id, name }) => ({ keyId: id, name })),
          ),
        ),
      )
    },
    issue: (name) =>
      tryStore(async () => {
        const key = generateApiKey()
        const row = await db
          .insertInto('api_keys')
          .values({ name, digest: sha256Hex(key), created_at: now() })
          .returning(recordColumns)
          .executeTakeFirstOrThrow()
        return { key, record: toRecord(row) }
      }),
    list: () =>
      pipe(
        tryStore(() => db.selectFrom('api_keys').select(recordColumns).orderBy('id').execute()),
        TE.map((rows) => rows.map(toRecord)),
      ),
    revoke: (id) =>
      isKeyId(id)
        ? pipe(
            tryStore(() =>
              db
                .updateTable('api_keys')
                .set({ revoked_at: now() })
                .where('id', '=', id)
                .where('revoked_at', 'is', null)
                .returning(recordColumns)
                .executeTakeFirst(),
            ),
            TE.map((row) => pipe(O.fromNullable(row), O.map(toRecord))),
          )
        : TE.right(O.none),
  }
}
