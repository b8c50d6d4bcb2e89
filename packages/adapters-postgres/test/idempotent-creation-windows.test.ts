import { run } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { createPostgresIdempotentPetCreations } from '../src/index.js'
import { countRows, holdOrderingLock, named, waitForLockWait } from './support/creation-batches.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

const T0 = new Date('2026-11-22T12:00:00Z')
const later = (ms: number) => new Date(T0.getTime() + ms)

// One statement reads every record of its batch with one window: creations with other windows wait for a
// batch of their own, or a record expired for one of them would be replayed to it.
describe('idempotent creations with different windows, queued together', () => {
  const { open } = useFreshDatabases()

  it('go in batches of their own: each creation reads its records with its own window', async () => {
    const fresh = await open()
    const creations = createPostgresIdempotentPetCreations(fresh, { clock: 'request' })
    const recorded = await run(creations.addOnce(named('short', { at: T0, expiredBefore: later(-60_000) })))
    const release = await holdOrderingLock(fresh)
    const first = creations.addOnce(named('first'))()
    await waitForLockWait(fresh)
    // Ten seconds on: a day's window still holds the record of `short`; a window of one second does not.
    const at = later(10_000)
    const queued = [
      named('long', { at, expiredBefore: later(10_000 - 86_400_000) }),
      named('short', { at, expiredBefore: later(9_000) }),
    ].map((creation) => creations.addOnce(creation)())
    await release()
    await first
    const [long, short] = await Promise.all(queued)
    expect(long?._tag).toBe('Right')
    // Expired for its one second: replaced by a new pet, not the recorded one replayed.
    expect(short?._tag === 'Right' && short.right.id).not.toBe(recorded.id)
    expect(short?._tag === 'Right' && short.right.id).toBeGreaterThan(recorded.id)
    expect(await countRows(fresh, 'pets')).toBe(4)
  })
})
