import { describe, expect, it } from 'vitest'
import {
  DatabaseEncodingError,
  migrateToLatest,
  migrations,
  pendingMigrations,
  requireUtf8Database,
} from '../src/index.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

describe('a database that does not keep text as UTF-8', () => {
  const { open } = useFreshDatabases()

  it('is refused before any migration, naming its encoding and how to create one that fits', async () => {
    for (const encoding of ['SQL_ASCII', 'LATIN1']) {
      const other = await open({ encoding })
      const refused = migrateToLatest(other)
      await expect(refused).rejects.toBeInstanceOf(DatabaseEncodingError)
      await expect(refused).rejects.toThrow(
        `the database "${other.name}" keeps text as ${encoding}, and the service needs UTF8 to store every ` +
          `name as sent: create it with "createdb --encoding=UTF8 --template=template0 ${other.name}"`,
      )
      // Nothing ran.
      expect(await pendingMigrations(other.db)).toEqual(Object.keys(migrations))
    }
  })

  it('passes a UTF8 database, empty or migrated', async () => {
    await expect(requireUtf8Database((await open({ empty: true })).db)).resolves.toBeUndefined()
    await expect(requireUtf8Database((await open()).db)).resolves.toBeUndefined()
  })
})
