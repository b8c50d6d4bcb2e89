import { describe, expect, it } from 'vitest'
import {
  checkPaging,
  describeViolation,
  eventClock,
  type Acknowledged,
  type Walk,
} from './support/paging-checker.js'

const pet = (id: number, at: number, status: Acknowledged['status'] = 'available'): Acknowledged => ({
  id,
  status,
  at,
})
const walk = (pages: ReadonlyArray<[number, Array<number>]>, more: Partial<Walk> = {}): Walk => ({
  name: 'w',
  pages: pages.map(([requestedAt, ids]) => ({ requestedAt, ids })),
  complete: true,
  ...more,
})

describe('checkPaging', () => {
  const log = [pet(1, 10), pet(2, 20, 'sold'), pet(4, 30), pet(5, 40, 'sold')]

  it('finds nothing in a walk that lists every pet acknowledged before its last page, once, in order', () => {
    expect(
      checkPaging(log, [
        walk([
          [35, [1, 2]],
          [45, [4, 5]],
        ]),
      ]),
    ).toEqual([])
    // 3 was rolled back, 6 is still being added: ids nobody acknowledged may be there or not.
    expect(
      checkPaging(log, [
        walk([
          [35, [1, 2, 3]],
          [45, [4, 5, 6]],
        ]),
      ]),
    ).toEqual([])
  })

  it('names the walk and the pet acknowledged before the last page was requested but never listed', () => {
    // 4 was answered at 30; the walk passed it at 25 (on to 5) and ended at 45.
    const walks = [
      walk(
        [
          [25, [1, 2, 5]],
          [45, []],
        ],
        { name: 'walk 3.1' },
      ),
    ]
    expect(checkPaging(log, walks)).toEqual([
      { kind: 'missing', walk: 'walk 3.1', id: 4, acknowledgedAt: 30, lastRequestedAt: 45 },
    ])
    expect(describeViolation(checkPaging(log, walks)[0]!)).toBe(
      'walk 3.1: pet 4 is missing; acknowledged at 30.0 ms, last page requested at 45.0 ms',
    )
  })

  it('asks nothing of a pet acknowledged after, or at, the instant the last page was requested', () => {
    expect(checkPaging(log, [walk([[30, [1, 2]]])])).toEqual([])
  })

  it('asks only for the pets of its status, and reports one of another status', () => {
    expect(checkPaging(log, [walk([[50, [2, 5]]], { status: 'sold' })])).toEqual([])
    expect(checkPaging(log, [walk([[50, [2, 4]]], { status: 'sold' })])).toEqual([
      { kind: 'unmatched', walk: 'w', id: 4, status: 'available', page: 0 },
      { kind: 'missing', walk: 'w', id: 5, acknowledgedAt: 40, lastRequestedAt: 50 },
    ])
  })

  it('reports a pet seen twice, with both pages, and an id below one already seen', () => {
    const walks = [
      walk([
        [50, [1, 2]],
        [51, [2, 4]],
        [52, [1, 5]],
      ]),
    ]
    expect(checkPaging(log, walks)).toEqual([
      { kind: 'seen twice', walk: 'w', id: 2, pages: [0, 1] },
      { kind: 'seen twice', walk: 'w', id: 1, pages: [0, 2] },
    ])
    expect(
      checkPaging(log, [
        walk([
          [50, [1, 4]],
          [51, [2, 5]],
        ]),
      ]),
    ).toEqual([{ kind: 'out of order', walk: 'w', id: 2, after: 4, page: 1 }])
    expect(describeViolation(checkPaging(log, walks)[0]!)).toBe('w: pet 2 seen twice, on pages 0 and 1')
  })

  it('checks only the order of a walk that never reached a page without next', () => {
    expect(checkPaging(log, [walk([[50, [1]]], { complete: false })])).toEqual([])
    expect(checkPaging(log, [walk([[50, [4, 1]]], { complete: false })])).toEqual([
      { kind: 'out of order', walk: 'w', id: 1, after: 4, page: 0 },
    ])
  })

  it('checks each walk against its own last page', () => {
    const early = walk([[15, [1]]], { name: 'early' })
    const late = walk(
      [
        [15, [1]],
        [50, [2]],
      ],
      { name: 'late' },
    )
    expect(checkPaging(log, [early, late]).map(describeViolation)).toEqual([
      'late: pet 4 is missing; acknowledged at 30.0 ms, last page requested at 50.0 ms',
      'late: pet 5 is missing; acknowledged at 40.0 ms, last page requested at 50.0 ms',
    ])
  })
})

describe('eventClock', () => {
  it('gives each call a larger instant than the one before', () => {
    const clock = eventClock()
    const instants = Array.from({ length: 1000 }, clock)
    expect(instants.every((at, i) => i === 0 || at > instants[i - 1]!)).toBe(true)
  })
})
