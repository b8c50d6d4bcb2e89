import { migrateToLatest } from '@pets/adapters-postgres'
import type { AppConfig } from '../config.js'
import { withDatabase } from './with-database.js'

/** `animal-store migrate`: brings the schema up to date and says what ran. */
export const migrateCommand = (config: AppConfig, print: (line: string) => void) =>
  withDatabase(config, 'migrate', async (database) => {
    await migrateToLatest(database, print)
  })
