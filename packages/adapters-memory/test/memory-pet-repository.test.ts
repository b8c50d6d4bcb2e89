import { PET_STATUSES, type CategoryId, type PageCursor, type PetName, type PetStatus } from '@pets/domain'
import { describePetRepositoryContract } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { createMemoryPetRepository } from '../src/index.js'

describePetRepositoryContract('memory', async () => ({
  repo: createMemoryPetRepository(),
  close: async () => {},
}))

describe('the memory repository: listings by status, by its rows of each status', () => {
  it('lists what a scan of every pet would, from any id, past the growth of its rows', async () => {
    const repo = createMemoryPetRepository()
    const statuses: Array<PetStatus> = []
    // Runs of one status and scattered ones, past 1,024 rows (the first growth) for each status.
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let i = 0; i < 5_000; i++) {
      const status = i < 1_500 ? 'available' : PET_STATUSES[next() % PET_STATUSES.length]!
      statuses.push(status)
      await repo.add({ name: 'Rex' as PetName, categoryId: 1 as CategoryId, status })()
    }
    for (const status of PET_STATUSES)
      for (const after of [0, 1, 1_023, 1_499, 1_500, 2_048, 4_990, 4_999, 5_000, 9_000])
        for (const limit of [1, 20, 100]) {
          const listed = await repo.list({ after: after as PageCursor, limit, status })()
          const expected = statuses
            .map((s, row) => ({ id: row + 1, s }))
            .filter(({ id, s }) => id > after && s === status)
            .slice(0, limit)
            .map(({ id }) => id)
          expect(E.isRight(listed) && listed.right.map((p) => p.id)).toEqual(expected)
        }
  })
})
