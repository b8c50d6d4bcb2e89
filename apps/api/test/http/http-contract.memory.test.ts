import { startTestService } from '../support/test-service.js'
import { describeHttpContract } from './http-contract.js'

describeHttpContract('memory', startTestService)
