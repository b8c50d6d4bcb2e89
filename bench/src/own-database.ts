import { randomBytes } from 'node:crypto'
import type { BenchOptions } from './options.js'
import { createDatabase, databaseUrl, dropDatabase, seedPets } from './postgres.js'
import { serviceCommand, type Shared } from './servers.js'

/** A fresh API key for a run. */
export const benchKey = (): string => randomBytes(24).toString('base64url')

/** A database of its own for one measurement, migrated and seeded with the options' pets; dropped at the end. */
export const withDatabase = async <A>(
  options: BenchOptions,
  suffix: string,
  work: (shared: Shared & { readonly databaseUrl: string }, apiKey: string) => Promise<A>,
): Promise<A> => {
  const name = `${options.databaseName}_${suffix}`
  await createDatabase(options.adminUrl, name)
  try {
    const url = databaseUrl(options.adminUrl, name)
    await serviceCommand(url, 'migrate')
    await seedPets(url, options.seededPets)
    const apiKey = benchKey()
    return await work({ apiKeys: [benchKey(), apiKey], databaseUrl: url }, apiKey)
  } finally {
    await dropDatabase(options.adminUrl, name)
  }
}
