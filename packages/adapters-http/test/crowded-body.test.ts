import { decodeNewPet, UNKNOWN_NAMED } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_MEMBERS } from '../src/body/repeated-member.js'
import { errorBodyOf, memoryAppServedForAll } from './support/memory-app.js'
import { watching } from './support/watch-calls.js'

const UNKNOWN = 'is not a field of a new pet (allowed: name, categoryId, status)'
const membersOf = (members: ReadonlyArray<readonly [string, unknown]>) =>
  `{${members.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`
const unknownNames = (count: number) => Array.from({ length: count }, (_, i) => `k${i}`)

// What the service answered to such a body before it was answered from its first members: the domain's
// decoding of the parsed value, which lists every key (a body with no name given twice, none of them an
// integer, whose categoryId JSON.parse does not round: nothing else is said of it).
const answeredFromEveryKey = (text: string) => {
  const decoded = decodeNewPet(JSON.parse(text))
  if (E.isRight(decoded)) throw new Error(`no issue in ${text}`)
  const issues = decoded.left.issues.map(({ field, problem }) =>
    field === '' ? `the body ${problem}` : `${field} ${problem}`,
  )
  return `Invalid request: ${issues.join('; ')}.`
}

describe(`a body of more than ${MAX_MEMBERS} members`, () => {
  const held = memoryAppServedForAll()
  const names = unknownNames(5_000)
  const body = membersOf([['name', 'Rex'], ['categoryId', 1], ...names.map((k) => [k, 1] as const)])

  it(`puts at most ${MAX_MEMBERS} of its names in a set, for the ones given twice`, async () => {
    // All 5,002 went into a set: 0.8 times the JSON.parse of the body, on every such request.
    let added = 0
    await watching(
      Set.prototype,
      'add',
      ([name]) => {
        if (typeof name === 'string' && /^k\d+$/.test(name)) added++
      },
      async () => expect((await held.served.post(body)).status).toBe(400),
    )
    expect(added).toBeGreaterThan(0)
    expect(added).toBeLessThanOrEqual(MAX_MEMBERS)
  })

  it('lists no object of its thousands of keys: it names the first unknown ones and counts the rest', async () => {
    // Object.keys of the parsed body listed all 5,002: 0.6 times its JSON.parse.
    let longest = 0
    let message = ''
    await watching(
      Object,
      'keys',
      (_, keys) => {
        longest = Math.max(longest, (keys as ReadonlyArray<string>).length)
      },
      async () => {
        message = errorBodyOf(await held.served.post(body)).message
      },
    )
    expect(message).toBe(answeredFromEveryKey(body))
    expect(message).toContain(`${5_000 - UNKNOWN_NAMED} more are unknown too`)
    expect(longest).toBeLessThanOrEqual(MAX_MEMBERS)
  })

  it('says what the domain says of every key, for any such body: its fields, the unknown ones named, the rest counted', async () => {
    const field = fc.oneof(
      fc.constant(['name', 'Rex'] as const),
      fc.constant(['name', ''] as const),
      fc.constant(['name', 7] as const),
      fc.constant(['categoryId', 3] as const),
      fc.constant(['categoryId', 0] as const),
      fc.constant(['categoryId', 'x'] as const),
      fc.constant(['status', 'sold'] as const),
      fc.constant(['status', 'lost'] as const),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(field, { selector: ([name]) => name, maxLength: 3 }),
        fc.integer({ min: MAX_MEMBERS - 2, max: 300 }),
        fc.nat(),
        fc.string({ maxLength: 80 }),
        async (fields, unknown, at, longName) => {
          // The known fields anywhere among the unknown ones, and one unknown name of any length.
          const members: Array<readonly [string, unknown]> = unknownNames(unknown).map((k) => [k, null])
          members[at % unknown] = [`x${longName}`, 1]
          for (const [i, known] of fields.entries()) members.splice((at * (i + 1)) % members.length, 0, known)
          fc.pre(members.length > MAX_MEMBERS)
          const text = membersOf(members)
          const answer = await held.served.post(text)
          expect(answer.status).toBe(400)
          expect(errorBodyOf(answer).message).toBe(answeredFromEveryKey(text))
        },
      ),
      { numRuns: 60 },
    )
  })

  it(`refuses a name given twice among its first ${MAX_MEMBERS} members, as any body's, and names the others`, async () => {
    const text = membersOf([
      ['categoryId', 1],
      ['name', 'Rex'],
      ['name', 'Max'],
      ...names.map((k) => [k, 1] as const),
    ])
    const named = unknownNames(UNKNOWN_NAMED)
      .map((k) => `${k} ${UNKNOWN}`)
      .join('; ')
    expect(errorBodyOf(await held.served.post(text)).message).toBe(
      `Invalid request: name is given more than once; ${named}; ${5_000 - UNKNOWN_NAMED} more are unknown too.`,
    )
  })

  it('counts a name given twice past its first members among the unknown ones, and names them in the order sent', async () => {
    // JSON.parse lists integer names first; the text is read in its order.
    const first = ['b', 'a', '10', '2', ...unknownNames(UNKNOWN_NAMED + 60)]
    const text = membersOf([
      ['name', 'Rex'],
      ['categoryId', 1],
      ...first.map((k) => [k, 1] as const),
      ['a', 2],
    ])
    const { message } = errorBodyOf(await held.served.post(text))
    const named = ['b', 'a', '10', '2', 'k0'].map((k) => `${k} ${UNKNOWN}`).join('; ')
    expect(message.startsWith(`Invalid request: ${named}; k1 `)).toBe(true)
    expect(message).toContain(`; ${first.length + 1 - UNKNOWN_NAMED} more are unknown too.`)
  })
})
