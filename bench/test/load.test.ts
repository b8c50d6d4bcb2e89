import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launch, type Launched } from '../src/launch.js'
import { drive, InvalidRun } from '../src/load.js'
import { scenariosFor } from '../src/scenarios.js'
import { baselineSpecs } from '../src/servers.js'

describe('a load run', () => {
  let server: Launched
  const load = { connections: 2, durationS: 0.2 }
  const listing = scenariosFor(0)[0]!

  beforeAll(async () => {
    server = await launch(baselineSpecs('memory', { apiKeys: ['right-key'] })[0]!)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('is reported when every response has the expected status', async () => {
    const sample = await drive(server, listing, load, 'right-key')
    expect(sample.requests).toBeGreaterThan(0)
    expect(sample.p99Ms).toBeGreaterThanOrEqual(sample.p50Ms)
  })

  it('is refused when any response has another status', async () => {
    await expect(drive(server, listing, load, 'wrong-key')).rejects.toThrow(InvalidRun)
    await expect(drive(server, listing, load, 'wrong-key')).rejects.toThrow(
      /statuses other than 200: 401×\d+;/,
    )
  })

  it('is refused when the server cannot be reached', async () => {
    const gone = { name: 'nobody', url: 'http://127.0.0.1:9', pid: process.pid }
    await expect(drive(gone, listing, { connections: 1, durationS: 0.3 }, 'right-key')).rejects.toThrow(
      InvalidRun,
    )
  })
})
