import { describeStorageContract } from '@pets/domain/testing'
import { createMemoryStorage } from '../src/index.js'

describeStorageContract('memory', async () => createMemoryStorage())
