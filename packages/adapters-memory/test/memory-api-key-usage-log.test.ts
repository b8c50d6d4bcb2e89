import { describeApiKeyUsageLogContract, run } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { createMemoryApiKeyUsageLog, createMemoryStoreHealth } from '../src/index.js'

describeApiKeyUsageLogContract('memory', async () => ({
  log: createMemoryApiKeyUsageLog(),
  close: async () => {},
}))

describe('memory store health', () => {
  it('answers as long as the process runs', async () => {
    expect(await run(createMemoryStoreHealth().check())).toBeUndefined()
  })
})
