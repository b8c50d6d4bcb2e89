import { randomBytes } from 'node:crypto'
import { createPostgresDatabase } from '../runner/index.js'
import { migrateToLatest } from '../migrate-to-latest.js'
import { findTestServer } from './find-test-server.js'
import { databaseUrl, dropDatabases, quoteIdent, redact, withAdminClient } from './with-admin-client.js'

/** Where tests make their databases: a server (any database on it) and a migrated template to clone. */
export type TestDatabase = { readonly url: string; readonly templateName: string }

/** A TestDatabase, and a `teardown` that drops the template, every clone of it, and stops the server it started. */
export type ProvidedTestDatabase = TestDatabase & { readonly teardown: () => Promise<void> }

/** For a vitest globalSetup: finds a server (findTestServer) and makes a migrated template for this run. */
export const provideTestDatabase = async (
  options: { readonly log?: ((line: string) => void) | undefined } = {},
): Promise<ProvidedTestDatabase> => {
  const server = await findTestServer()
  const templateName = `pets_template_${process.pid}_${randomBytes(4).toString('hex')}`
  const teardown = async () => {
    try {
      await dropDatabases(server.url, templateName)
    } finally {
      await server.stop()
    }
  }
  try {
    // UTF8 whatever the server's default (the service refuses another encoding), in the C locale that goes with it.
    await withAdminClient(server.url, (client) =>
      client.query(
        `CREATE DATABASE ${quoteIdent(templateName)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
      ),
    )
    // As `animal-store migrate` runs them: no statement timeout (the request path's 750 ms cancelled a
    // CREATE TABLE on a machine running every package's tests at once), and a patient first connection.
    const template = createPostgresDatabase({
      connectionString: databaseUrl(server.url, templateName),
      poolSize: 1,
      statementTimeoutMs: 0,
      connectionTimeoutMs: 10_000,
    })
    try {
      await migrateToLatest(template)
    } finally {
      // CREATE DATABASE … TEMPLATE refuses a template that has sessions.
      await template.close()
    }
  } catch (error) {
    await teardown().catch(() => {})
    throw error
  }
  options.log?.(`PostgreSQL for tests: ${server.source} at ${redact(server.url)}, template ${templateName}`)
  return { url: server.url, templateName, teardown }
}
