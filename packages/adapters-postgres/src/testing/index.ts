export { startDelayingProxy } from './delaying-proxy.js'
export { freePort } from './free-port.js'
export { startPostgresProxy, type PostgresProxy, type Relay } from './postgres-proxy.js'
export { findTestServer, type TestServer } from './find-test-server.js'
export { openFreshDatabase, type FreshDatabase, type FreshDatabaseOptions } from './open-fresh-database.js'
export { provideTestDatabase, type ProvidedTestDatabase, type TestDatabase } from './provide-test-database.js'
export {
  HOW_TO_PROVIDE_PGBOUNCER,
  startTestPgBouncer,
  type PgBouncerOptions,
  type TestPgBouncer,
} from './pgbouncer.js'
