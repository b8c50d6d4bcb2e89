import { usePgBouncer } from '../support/pgbouncer.js'
import { startTestService } from '../support/test-service.js'
import { describeHttpContract } from './http-contract.js'

// The same suite again, each service's DATABASE_URL through PgBouncer in transaction mode and its
// DATABASE_DIRECT_URL on PostgreSQL itself, as a deployment of many instances runs it.
const pgbouncer = usePgBouncer()
describeHttpContract('postgres through PgBouncer', async (options) =>
  startTestService({ ...options, storage: 'postgres', pgbouncer: await pgbouncer() }),
)
