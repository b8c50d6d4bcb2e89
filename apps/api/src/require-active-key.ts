import type { ApiKeyStore } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from './commands/usage.js'

/** CONTRACT: production needs at least one API key, from API_KEYS or the database. Throws a UsageError naming what is missing. */
export const requireActiveKey = async (store: ApiKeyStore): Promise<void> => {
  const records = await store.list()()
  if (E.isRight(records) && records.right.some((r) => r.revokedAt === null)) return
  throw new UsageError(
    E.isLeft(records)
      ? 'cannot start: PostgreSQL cannot be reached to look for API keys'
      : 'cannot start: APP_ENV=production needs at least one API key: set API_KEYS, or create one with "animal-store keys create --name NAME"',
  )
}
