import { describe, expect, it } from 'vitest'
import { restartBackoff } from '../src/cluster/run-primary.js'

describe('the back-off of replacing dead workers', () => {
  it('replaces at once a worker that ran a while', () => {
    expect(restartBackoff(60_000, 0)).toEqual({ delayMs: 0, quickDeaths: 0 })
    expect(restartBackoff(60_000, 5)).toEqual({ delayMs: 0, quickDeaths: 0 })
  })

  it('waits twice as long after each worker in a row that died soon after its start, up to 30 s', () => {
    let quickDeaths = 0
    const delays: Array<number> = []
    for (let i = 0; i < 10; i++) {
      const next = restartBackoff(500, quickDeaths)
      quickDeaths = next.quickDeaths
      delays.push(next.delayMs)
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
  })
})
