import { describe, expect, it } from 'vitest'
import type { Sample } from './support/auto-failover/failover-load.js'
import type { MonitorEvent } from './support/auto-failover/monitor.js'
import { answeredWhileUnprotected, unprotectedWindow } from './support/auto-failover/unprotected-writes.js'

// The monitor's log of the switchover that lost 19 pets in CI (2026-11-27), times from the switchover
// asked for: node2 was the primary, node1 its standby.
const event = (at: number, node: string, reported: string, goal: string): MonitorEvent => ({
  at,
  node,
  reported,
  goal,
  rep: 'unknown',
  lsn: '0/0',
  description: '',
})
const SWITCHOVER = [
  event(-8_128, 'node2', 'primary', 'primary'),
  event(180, 'node2', 'primary', 'draining'),
  event(180, 'node1', 'secondary', 'prepare_promotion'),
  event(195, 'node2', 'primary', 'wait_primary'),
  event(262, 'node1', 'prepare_promotion', 'stop_replication'),
  event(262, 'node2', 'primary', 'demote_timeout'),
  event(310, 'node2', 'wait_primary', 'demote_timeout'),
  event(1_471, 'node1', 'stop_replication', 'wait_primary'),
  event(1_471, 'node2', 'wait_primary', 'demoted'),
  event(1_795, 'node2', 'demoted', 'demoted'),
  event(4_867, 'node1', 'wait_primary', 'primary'),
]

const created = (startedAt: number, endedAt: number): Sample => ({
  kind: 'create',
  startedAt,
  endedAt,
  status: 201,
  id: 1,
})

describe('the window in which the old primary acknowledged writes without its synchronous standby', () => {
  it('runs from the goal wait_primary the monitor gave it to its report of a stop', () => {
    expect(unprotectedWindow(SWITCHOVER, 'node2', 0)).toEqual({ from: 195, until: 1_795 })
  })

  it('is none in a switchover without the race, and none for a wait_primary before the failover', () => {
    const clean = SWITCHOVER.filter((e) => e.goal !== 'wait_primary' || e.node !== 'node2')
    expect(unprotectedWindow(clean, 'node2', 0)).toBeUndefined()
    // A wait_primary before the failover (a standby that was unhealthy then healed) is not this one.
    expect(unprotectedWindow(SWITCHOVER, 'node2', 2_000)).toBeUndefined()
  })

  it('ends when the old primary reports primary again, after wait_primary (its standby back)', () => {
    const back = [...SWITCHOVER.slice(0, 7), event(900, 'node2', 'primary', 'primary')]
    expect(unprotectedWindow(back, 'node2', 0)).toEqual({ from: 195, until: 900 })
  })

  it('stays open while the old primary has not reported a stop', () => {
    expect(unprotectedWindow(SWITCHOVER.slice(0, 7), 'node2', 0)).toEqual({
      from: 195,
      until: Number.POSITIVE_INFINITY,
    })
  })

  it('covers a 201 answered in it or sent before its end, not one answered before it began', () => {
    const within = answeredWhileUnprotected(unprotectedWindow(SWITCHOVER, 'node2', 0))
    // The 19 lost pets were answered from 560 to 1,499 ms.
    expect(within(created(208, 560))).toBe(true)
    expect(within(created(1_371, 1_499))).toBe(true)
    expect(within(created(1_700, 2_100))).toBe(true)
    expect(within(created(100, 190))).toBe(false)
    expect(within(created(1_800, 1_900))).toBe(false)
    expect(within({ ...created(300, 400), status: 503 })).toBe(false)
    expect(answeredWhileUnprotected(undefined)(created(300, 400))).toBe(false)
  })
})
