import type { PetStatus } from '@pets/domain'
import type { ColumnType, GeneratedAlways, Kysely, Selectable, Transaction } from 'kysely'

// int8 columns are typed `string`: pg reads them as decimal strings, and writing them as strings
// keeps every digit. `toPetId` turns them into numbers, and refuses those a number cannot hold.

/** A timestamp the database fills in when a row is added; never updated. */
type CreatedAt = ColumnType<Date, Date | undefined, never>

/** The `pets` table: one row per pet, ids from an identity column. */
export interface PetsTable {
  readonly id: GeneratedAlways<string>
  readonly name: string
  readonly category_id: string
  readonly status: PetStatus
  readonly created_at: CreatedAt
}

/** The `api_keys` table: one row per issued key, holding its SHA-256 digest, never the key. */
export interface ApiKeysTable {
  readonly id: GeneratedAlways<string>
  readonly name: string
  /** The key's SHA-256 digest in lower-case hex. */
  readonly digest: string
  readonly created_at: CreatedAt
  readonly revoked_at: Date | null
  readonly last_used_at: Date | null
}

/** The `api_key_usage` table: per API key id and operation id, the calls counted so far. */
export interface ApiKeyUsageTable {
  readonly key_id: string
  readonly operation: string
  readonly calls: string
  readonly last_called_at: Date
}

/** The `idempotency_records` table: per API key id and Idempotency-Key, the pet its request added. */
export interface IdempotencyRecordsTable {
  readonly api_key_id: string
  readonly idempotency_key: string
  /** What the request asked, as the HTTP adapter reduced it (a digest of the body's canonical JSON). */
  readonly fingerprint: string
  readonly pet_id: string
  readonly created_at: Date
}

/** The tables kysely knows, as the migrations leave them. */
export interface Database {
  readonly pets: PetsTable
  readonly api_keys: ApiKeysTable
  readonly idempotency_records: IdempotencyRecordsTable
  readonly api_key_usage: ApiKeyUsageTable
}

/**
 * A kysely instance of the caller's, whose schema has these tables and maybe more, as the adapters type it.
 * Safe: they name only these tables. kysely's types are invariant in the schema, so a caller's
 * `Kysely<Database & Orders>` (or its transaction) would not be a `Kysely<Database>` by itself.
 */
export const withOurTables = <DB extends Database>(db: KyselyOf<DB>): Kysely<Database> =>
  db as unknown as Kysely<Database>

/**
 * A kysely instance or a transaction on schema `DB`: named both ways, since TypeScript infers `DB` from a
 * `Transaction<DB>` given for a `Kysely<DB>` as the constraint alone.
 */
export type KyselyOf<DB> = Kysely<DB> | Transaction<DB>

/** A row of `pets` as a query reads it. */
export type PetRow = Selectable<PetsTable>
/** A row of `api_keys` as a query reads it. */
export type ApiKeyRow = Selectable<ApiKeysTable>
