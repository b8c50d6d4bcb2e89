import { DEPRECATED_OPERATIONS } from '@pets/adapters-http'
import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  isKeyId,
  requireUtf8Database,
  sqlstateOf,
} from '@pets/adapters-postgres'
import { ApiKeyName, type ApiKeyRecord, type ApiKeyStore, type StoreUnavailable } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import type { AppConfig } from '../config.js'
import { environmentKeys } from '../environment-keys.js'
import { alignColumns } from './columns.js'
import { StandardOutputError, type Output } from './standard-output.js'
import { usageTable } from './usage-table.js'
import { listenForRevocationHeard } from './revocation-heard.js'
import { KEYS_USAGE, UsageError } from './usage.js'
import { withDatabase } from './with-database.js'

const unwrap = async <A>(task: TaskEither<StoreUnavailable, A>): Promise<A> => {
  const result = await task()
  // Its cause (ECONNREFUSED, pg's timeout) is what main.ts tells the operator, in one line.
  if (E.isLeft(result))
    throw new Error('PostgreSQL cannot be reached; check DATABASE_URL and try again', {
      cause: result.left.cause,
    })
  return result.right
}

const date = (d: Date | null) => (d === null ? '-' : d.toISOString())
const table = (records: ReadonlyArray<ApiKeyRecord>): Array<string> =>
  alignColumns([
    ['ID', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
    ...records.map((r) => [r.id, r.name, date(r.createdAt), date(r.lastUsedAt), date(r.revokedAt)]),
  ])

type KeysAction =
  | { readonly action: 'create'; readonly name: ApiKeyName }
  | { readonly action: 'list' | 'usage' }
  | { readonly action: 'revoke'; readonly id: string }

// A table without rows is no failure, and scripts read standard output alone: the hint goes to standard error,
// once the table is written (a table that could not be is the command's one line instead).
const printTable = async (lines: ReadonlyArray<string>, { print, written }: Output, empty: string) => {
  lines.forEach((line) => print(line))
  if (lines.length > 1) return
  await written()
  process.stderr.write(`animal-store: ${empty}: create one with "animal-store keys create --name NAME"\n`)
}

// A known action asked wrongly: what it needs, and what it was given.
const wrongly = (action: string, needs: string, given: ReadonlyArray<string>) =>
  new UsageError(
    `keys ${action}: ${needs}${given.length === 0 ? '' : `, not ${JSON.stringify(given.join(' '))}`}; usage:\n${KEYS_USAGE}`,
  )

// What was asked, checked before any database is opened: a typo costs no connection.
const parseKeysArgs = (args: ReadonlyArray<string>): KeysAction => {
  const [action, ...rest] = args
  if (action === 'create') {
    if (rest.length !== 2 || rest[0] !== '--name') throw wrongly(action, 'needs --name NAME', rest)
    const name = ApiKeyName.decode(rest[1])
    if (E.isLeft(name)) throw new UsageError(`keys create: --name ${name.left[0]?.message ?? 'is invalid'}`)
    return { action, name: name.right }
  }
  if (action === 'list' || action === 'usage') {
    if (rest.length > 0) throw wrongly(action, 'takes no arguments', rest)
    return { action }
  }
  if (action === 'revoke') {
    if (rest.length !== 1) throw wrongly(action, 'needs one ID, a key\'s id as "keys list" shows it', rest)
    // An id is what `keys list` shows, a positive integer (an int8): anything else is a typo, found without a
    // database.
    if (!isKeyId(rest[0]!))
      throw new UsageError(
        `keys revoke: ID must be a key's id as "keys list" shows it, such as 3, not ${JSON.stringify(rest[0])}`,
      )
    return { action, id: rest[0]! }
  }
  // Named as main names a command it does not know (`migrate now`).
  throw new UsageError(`unknown command "${['keys', ...args].join(' ')}"; usage:\n${KEYS_USAGE}`)
}

// Why the revocation failed, in the operator's terms: the SQLSTATE (42501: no right to revoke), else the words.
const whyNot = (failure: unknown): string => {
  const { _tag, cause: inner } = (failure ?? {}) as { _tag?: unknown; cause?: unknown }
  const cause = _tag === 'StoreUnavailable' ? inner : failure
  return sqlstateOf(cause) ?? (cause instanceof Error ? cause.message : String(cause))
}

// A key counts as given once standard output took it. Else nobody saw it: it is revoked, never left active.
const confirmShown = async (store: ApiKeyStore, { id, name }: ApiKeyRecord, { written }: Output) => {
  try {
    await written()
  } catch (error) {
    if (!(error instanceof StandardOutputError)) throw error
    const revoked = await store
      .revoke(id)()
      .catch((thrown: unknown) => E.left(thrown))
    throw new StandardOutputError(
      error.cause,
      E.isRight(revoked)
        ? `key ${id} (${name}) was revoked, since nobody saw it`
        : `key ${id} (${name}) is active and nobody saw it, and it could not be revoked (${whyNot(revoked.left)}): ` +
            `run "animal-store keys revoke ${id}"`,
    )
  }
}

/** `animal-store keys …`: manages the API keys kept in PostgreSQL. */
export const keysCommand = (config: AppConfig, args: ReadonlyArray<string>, output: Output) => {
  const { print } = output
  const asked = parseKeysArgs(args)
  return withDatabase(config, `keys ${asked.action}`, async (database) => {
    const { db } = database
    // As the service refuses it: a key's name could not be kept as given.
    await requireUtf8Database(db)
    const store = createPostgresApiKeyStore(db)
    switch (asked.action) {
      case 'create': {
        const issued = await unwrap(store.issue(asked.name))
        print(`Created key ${issued.record.id} (${issued.record.name}). It is shown this once; keep it safe:`)
        print(issued.key)
        return confirmShown(store, issued.record, output)
      }
      case 'list':
        return printTable(
          table(await unwrap(store.list())),
          output,
          'no keys stored yet (API_KEYS are not listed)',
        )
      case 'usage': {
        const records = await unwrap(store.list())
        const usage = await unwrap(createPostgresApiKeyUsageLog(db).list())
        const names = new Map(
          environmentKeys(config.apiKeys, config.apiKeyIdSecret).map((k) => [k.id, k.name]),
        )
        return printTable(
          usageTable(records, usage, DEPRECATED_OPERATIONS, names),
          output,
          'no keys stored yet, and no key of API_KEYS has called',
        )
      }
      case 'revoke': {
        const heard = await listenForRevocationHeard(config, database)
        const revoked = await unwrap(store.revoke(asked.id)).catch(async (error: unknown) => {
          await heard.close()
          throw error
        })
        const report = O.isSome(revoked) ? await heard.report(revoked.value) : undefined
        await heard.close()
        if (report !== undefined) {
          print(report.line)
          if (report.warning === undefined) return
          await output.written()
          return void process.stderr.write(`animal-store: keys revoke: ${report.warning}\n`)
        }
        // Revoking twice is no failure of an operator's script: the key is refused either way.
        const known = (await unwrap(store.list())).find((record) => record.id === asked.id)
        if (known === undefined)
          throw new UsageError(`no key has id ${asked.id} ("animal-store keys list" shows the keys)`)
        if (known.revokedAt === null) throw new UsageError(`key ${asked.id} is active but was not revoked`)
        return print(`Key ${known.id} (${known.name}) was already revoked; it is refused.`)
      }
    }
  })
}
