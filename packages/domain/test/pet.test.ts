import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import { countCodePoints } from '../src/checked.js'
import {
  CategoryId,
  PageCursor,
  PageLimit,
  PetId,
  PetName,
  PetStatus,
  toPetData,
  type NewPet,
} from '../src/index.js'

const MAX = 9007199254740991

// The message of the only failure of `codec.decode(u)`, or undefined when it succeeded.
const failure = (codec: { readonly decode: (u: unknown) => t.Validation<unknown> }, u: unknown) => {
  const decoded = codec.decode(u)
  if (E.isRight(decoded)) return undefined
  expect(decoded.left).toHaveLength(1)
  return decoded.left[0]?.message ?? 'no message'
}

describe.each([
  ['PetId', PetId],
  ['CategoryId', CategoryId],
] as const)('%s', (_, codec) => {
  it('accepts the integers 1 and 2^53 - 1', () => {
    expect(codec.decode(1)).toEqual(E.right(1))
    expect(codec.decode(MAX)).toEqual(E.right(MAX))
    expect(codec.is(MAX)).toBe(true)
  })

  it.each([0, -1, 1.5, MAX + 1, Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined])(
    'rejects %s as not an integer from 1 to 2^53 - 1',
    (value) => {
      expect(failure(codec, value)).toBe('must be an integer from 1 to 9007199254740991')
      expect(codec.is(value)).toBe(false)
    },
  )
})

describe('PetName', () => {
  it('accepts a name of one character and keeps leading and trailing spaces', () => {
    expect(PetName.decode('R')).toEqual(E.right('R'))
    expect(PetName.decode('  Rex \t')).toEqual(E.right('  Rex \t'))
  })

  it('counts code points, not UTF-16 units: 255 astral emoji are accepted', () => {
    const name = '🐕'.repeat(255)
    expect(name.length).toBe(510)
    expect(PetName.decode(name)).toEqual(E.right(name))
    expect(PetName.decode('a'.repeat(255))).toEqual(E.right('a'.repeat(255)))
  })

  it('rejects 256 code points with a message giving the count', () => {
    expect(failure(PetName, '🐕'.repeat(256))).toBe('must be at most 255 characters long (it has 256)')
    expect(failure(PetName, 'a'.repeat(300))).toBe('must be at most 255 characters long (it has 300)')
  })

  it('counts code points as for…of does, lone surrogate halves each one', () => {
    // Every string of one to four of these units: pairs whole, split and swapped among them.
    const units = ['a', 'é', '🐕', '\uD83D', '\uDC15', '\u0000', ' ']
    let names = ['']
    for (let length = 1; length <= 4; length++) {
      names = names.flatMap((name) => units.map((unit) => name + unit))
      for (const name of names) expect(countCodePoints(name), JSON.stringify(name)).toBe([...name].length)
    }
  })

  it('reads each character of a long name once to count it', () => {
    // A 64 KiB name was counted twice with the string iterator: 1.5 ms of CPU for its 400.
    const name = 'a🐕'.repeat(20_000)
    const iterator = Object.getPrototypeOf(''[Symbol.iterator]()) as { next: () => unknown }
    const [next, charCodeAt] = [iterator.next, String.prototype.charCodeAt]
    let reads = 0
    iterator.next = function (this: unknown) {
      reads++
      return next.call(this)
    }
    String.prototype.charCodeAt = function (this: string, index: number) {
      reads++
      return charCodeAt.call(this, index)
    }
    let message: string | undefined
    try {
      message = failure(PetName, name)
    } finally {
      iterator.next = next
      String.prototype.charCodeAt = charCodeAt
    }
    expect(message).toBe('must be at most 255 characters long (it has 40000)')
    expect(reads).toBeLessThanOrEqual(name.length)
  })

  it.each(['', ' ', '   ', '\t', '\n', '\t\r\n ', '\u00A0\u2003'])(
    'rejects a name with no character that is not white space (%j)',
    (name) => {
      expect(failure(PetName, name)).toBe('must contain at least one character that is not white space')
    },
  )

  it('rejects the character U+0000, alone or inside a name', () => {
    expect(failure(PetName, 'Re\u0000x')).toBe('must not contain the character U+0000')
    expect(failure(PetName, '\u0000')).toBe('must not contain the character U+0000')
  })

  it.each([
    ['a lone high surrogate', 'Rex\uD83D'],
    ['a lone low surrogate', '\uDC15Rex'],
    ['a pair in the wrong order', '\uDC15\uD83D'],
  ])('rejects %s', (_, name) => {
    expect(failure(PetName, name)).toBe('must not contain unpaired surrogates')
  })

  it('accepts a valid surrogate pair', () => {
    expect(PetName.decode('\uD83D\uDC15 Rex')).toEqual(E.right('🐕 Rex'))
  })

  it('rejects a value that is not a string', () => {
    expect(failure(PetName, 42)).toBe('must be a string')
    expect(failure(PetName, null)).toBe('must be a string')
  })
})

describe('PetStatus', () => {
  it.each(['available', 'pending', 'sold'])('accepts %s', (status) => {
    expect(PetStatus.decode(status)).toEqual(E.right(status))
  })

  it.each(['Available', 'SOLD', 'pending ', '', 'adopted', null, 1])(
    'rejects anything else, case-sensitively (%j)',
    (status) => {
      expect(E.isLeft(PetStatus.decode(status))).toBe(true)
    },
  )
})

describe('PageLimit', () => {
  it.each([1, 20, 100])('accepts %s', (n) => {
    expect(PageLimit.decode(n)).toEqual(E.right(n))
  })

  it.each([0, 101, 1.5, -1, Number.NaN, '20'])('rejects %s as not an integer from 1 to 100', (n) => {
    expect(failure(PageLimit, n)).toBe('must be an integer from 1 to 100')
  })
})

describe('PageCursor', () => {
  it.each([0, 1, MAX])('accepts %s', (n) => {
    expect(PageCursor.decode(n)).toEqual(E.right(n))
  })

  it.each([-1, MAX + 1, 0.5, Number.NaN, '0'])('rejects %s as not an integer from 0 to 2^53 - 1', (n) => {
    expect(failure(PageCursor, n)).toBe('must be an integer from 0 to 9007199254740991')
  })
})

describe('toPetData', () => {
  const newPet = (status?: PetStatus) =>
    ({ name: 'Rex', categoryId: 7, ...(status === undefined ? {} : { status }) }) as NewPet

  it('makes a pet without a status available', () => {
    expect(toPetData(newPet())).toEqual({ name: 'Rex', categoryId: 7, status: 'available' })
  })

  it('keeps the status given', () => {
    expect(toPetData(newPet('sold'))).toEqual({ name: 'Rex', categoryId: 7, status: 'sold' })
    expect(toPetData(newPet('pending')).status).toBe('pending')
  })
})
