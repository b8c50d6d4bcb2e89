import type { PetStatus } from '@pets/domain'

/** A pet whose creation was acknowledged: its 201 was received, or its test transaction's COMMIT returned. */
export type Acknowledged = { readonly id: number; readonly status: PetStatus; readonly at: number }

/** One page of a walk: when it was requested, and the ids it listed, in the order listed. */
export type PageRead = { readonly requestedAt: number; readonly ids: ReadonlyArray<number> }

/** A walk of `next` links from a first page without `after`; `complete` once a page had no `next`. */
export type Walk = {
  readonly name: string
  readonly status?: PetStatus
  readonly pages: ReadonlyArray<PageRead>
  readonly complete: boolean
}

/** What a walk did wrong; `page` counts from 0. */
export type Violation =
  | {
      readonly kind: 'missing'
      readonly walk: string
      readonly id: number
      readonly acknowledgedAt: number
      readonly lastRequestedAt: number
    }
  | {
      readonly kind: 'seen twice'
      readonly walk: string
      readonly id: number
      readonly pages: readonly [number, number]
    }
  | {
      readonly kind: 'out of order'
      readonly walk: string
      readonly id: number
      readonly after: number
      readonly page: number
    }
  | {
      readonly kind: 'unmatched'
      readonly walk: string
      readonly id: number
      readonly status: PetStatus
      readonly page: number
    }

/**
 * The paging property (CONTRACT: walking `next` links returns every matching pet exactly once,
 * also while pets are added), as observed from outside:
 * - every walk that reached a page without `next` lists every acknowledged pet whose status matches
 *   its filter (any, without one) and whose acknowledgement came before its last page was
 *   requested (`missing` otherwise);
 * - in every walk the ids of its pages, one after the other, strictly increase: an id listed again
 *   is `seen twice`, any other id not above the largest so far is `out of order`;
 * - a walk with a filter lists no acknowledged pet of another status (`unmatched`).
 * Ids that no acknowledgement names (a request still running, say) count only for the order.
 */
export const checkPaging = (
  acknowledged: ReadonlyArray<Acknowledged>,
  walks: ReadonlyArray<Walk>,
): Array<Violation> => {
  const statusOf = new Map(acknowledged.map((pet) => [pet.id, pet.status]))
  const byTime = [...acknowledged].sort((x, y) => x.at - y.at)
  const violations: Array<Violation> = []
  for (const walk of walks) {
    const firstPage = new Map<number, number>()
    let largest = 0
    walk.pages.forEach(({ ids }, page) => {
      for (const id of ids) {
        const earlier = firstPage.get(id)
        if (earlier !== undefined)
          violations.push({ kind: 'seen twice', walk: walk.name, id, pages: [earlier, page] })
        else if (id <= largest)
          violations.push({ kind: 'out of order', walk: walk.name, id, after: largest, page })
        if (earlier === undefined) firstPage.set(id, page)
        largest = Math.max(largest, id)
        const status = statusOf.get(id)
        if (walk.status !== undefined && status !== undefined && status !== walk.status)
          violations.push({ kind: 'unmatched', walk: walk.name, id, status, page })
      }
    })
    const last = walk.pages.at(-1)
    if (!walk.complete || last === undefined) continue
    for (const pet of byTime) {
      if (pet.at >= last.requestedAt) break
      if ((walk.status === undefined || pet.status === walk.status) && !firstPage.has(pet.id))
        violations.push({
          kind: 'missing',
          walk: walk.name,
          id: pet.id,
          acknowledgedAt: pet.at,
          lastRequestedAt: last.requestedAt,
        })
    }
  }
  return violations
}

const ms = (at: number) => `${at.toFixed(1)} ms`

/** One line for a person: the walk, the pet, and what went wrong. */
export const describeViolation = (v: Violation): string => {
  switch (v.kind) {
    case 'missing':
      return `${v.walk}: pet ${v.id} is missing; acknowledged at ${ms(v.acknowledgedAt)}, last page requested at ${ms(v.lastRequestedAt)}`
    case 'seen twice':
      return `${v.walk}: pet ${v.id} seen twice, on pages ${v.pages[0]} and ${v.pages[1]}`
    case 'out of order':
      return `${v.walk}: pet ${v.id} on page ${v.page} comes after pet ${v.after}`
    case 'unmatched':
      return `${v.walk}: pet ${v.id} on page ${v.page} is ${v.status}, which the walk's filter excludes`
  }
}

/**
 * A clock for the log and the walks: milliseconds since an arbitrary start, strictly increasing
 * from one call to the next, so that of two events noted one after the other in this process the
 * later one has the larger instant.
 */
export const eventClock = (): (() => number) => {
  let last = -Infinity
  return () => (last = Math.max(performance.now(), last + 0.001))
}
