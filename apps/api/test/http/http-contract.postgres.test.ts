import { startTestService } from '../support/test-service.js'
import { describeHttpContract } from './http-contract.js'

// The same suite as on memory, each service on a fresh PostgreSQL database: interchangeable, shown.
describeHttpContract('postgres', (options) => startTestService({ ...options, storage: 'postgres' }))
