import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { describe, expect, it } from 'vitest'
import {
  createPet,
  forgetExpiredCreations,
  IDEMPOTENCY_WINDOW_MS,
  IdempotencyKey,
  type IdempotentCreation,
  type IdempotentPetCreations,
  type Pet,
  type PetRepository,
} from '../src/index.js'
import { aClock, aNewPet, run, runLeft } from '../src/testing/index.js'

const messageOf = (u: unknown) => {
  const decoded = IdempotencyKey.decode(u)
  return E.isLeft(decoded) ? decoded.left[0]?.message : undefined
}

describe('IdempotencyKey', () => {
  it.each([
    'a',
    '8e03978e-40d5-43e8-bc93-6894a57f9324',
    'with inner spaces',
    '"quoted"',
    `!#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
    'x'.repeat(255),
  ])('accepts %j', (key) => {
    expect(IdempotencyKey.decode(key)).toEqual(E.right(key))
  })

  it('refuses an empty key', () => {
    expect(messageOf('')).toBe('must not be empty')
  })

  it('refuses a key longer than 255 characters, saying how long it is', () => {
    expect(messageOf('x'.repeat(256))).toBe('must be at most 255 characters long (it has 256)')
  })

  it.each(['tab\there', 'new\nline', 'nul\u0000', 'del\u007f', 'é', '🐕'])(
    'refuses %j: not printable ASCII',
    (key) => {
      expect(messageOf(key)).toMatch(/printable ASCII/)
    },
  )
})

const recording = () => {
  const calls: Array<IdempotentCreation | Date> = []
  const creations: IdempotentPetCreations = {
    addOnce: (creation) => {
      calls.push(creation)
      return TE.right({ ...creation.pet, id: 1 } as Pet)
    },
    removeExpired: (before) => {
      calls.push(before)
      return TE.right(3)
    },
  }
  return { calls, creations }
}

describe('createPet with an idempotency key', () => {
  it('dates the request by the clock, expires records older than 24 hours, and applies the defaults', async () => {
    const { calls, creations } = recording()
    const clock = aClock('2026-11-22T12:00:00Z')
    const once = { owner: 'k1', key: 'retry-me' as IdempotencyKey, fingerprint: 'f' }
    const pets = createMemoryPetsThatFail()
    expect(
      await run(createPet({ pets, creations, clock })({ pet: aNewPet({ name: 'Rex' }), once })),
    ).toMatchObject({
      id: 1,
      name: 'Rex',
    })
    expect(calls).toEqual([
      {
        owner: 'k1',
        key: 'retry-me',
        fingerprint: 'f',
        pet: { name: 'Rex', categoryId: 1, status: 'available' },
        at: new Date('2026-11-22T12:00:00Z'),
        expiredBefore: new Date('2026-11-21T12:00:00Z'),
      },
    ])
  })

  it('answers IdempotencyUnsupported where the host keeps no record of such requests, and adds nothing', async () => {
    const pets = createMemoryPetsThatFail()
    const once = { owner: 'k1', key: 'retry-me' as IdempotencyKey, fingerprint: 'f' }
    expect(await runLeft(createPet({ pets })({ pet: aNewPet(), once }))).toEqual({
      _tag: 'IdempotencyUnsupported',
    })
  })
})

// Pets that must not be touched: a request with a key goes through the creations only.
const createMemoryPetsThatFail = (): PetRepository => ({
  add: () => () => Promise.reject(new Error('pets.add called for a request with a key')),
  findById: () => () => Promise.reject(new Error('not expected')),
  list: () => () => Promise.reject(new Error('not expected')),
})

describe('forgetExpiredCreations', () => {
  it('removes the records made over 24 hours before now, and says how many', async () => {
    const { calls, creations } = recording()
    const clock = aClock('2026-11-22T12:00:00Z')
    expect(await run(forgetExpiredCreations({ creations, clock })())).toBe(3)
    expect(calls).toEqual([new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS)])
  })
})
