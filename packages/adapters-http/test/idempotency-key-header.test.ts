import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'
import { describe, expect, it } from 'vitest'
import { IdempotencyKeyHeader } from '@pets/wire'
import { idempotencyKeyOf } from '../src/idempotency-key-header.js'

const ctxWith = (req: {
  headers: Record<string, string | Array<string>>
  headersDistinct?: Record<string, Array<string>>
}) => ({ req }) as unknown as Context

describe('reading the Idempotency-Key header', () => {
  it('reads the key from a request that node:http did not parse (no headersDistinct)', () => {
    expect(idempotencyKeyOf(ctxWith({ headers: { 'idempotency-key': 'order-42' } }))).toEqual(
      E.right(O.some('order-42')),
    )
    expect(idempotencyKeyOf(ctxWith({ headers: {} }))).toEqual(E.right(O.none))
  })

  it('refuses the header sent twice, however the request was parsed', () => {
    const twice = { 'idempotency-key': ['a', 'b'] }
    expect(E.isLeft(idempotencyKeyOf(ctxWith({ headers: twice })))).toBe(true)
    expect(
      E.isLeft(idempotencyKeyOf(ctxWith({ headers: { 'idempotency-key': 'a, b' }, headersDistinct: twice }))),
    ).toBe(true)
  })
})

describe('the header syntax of an Idempotency-Key', () => {
  const keyOf = (value: string) => idempotencyKeyOf(ctxWith({ headers: { 'idempotency-key': value } }))

  it.each([' leading', 'trailing ', ' '])(
    'refuses %j: white space at an end cannot travel in a header',
    (key) => {
      expect(keyOf(key)).toEqual(
        E.left({
          field: 'Idempotency-Key',
          problem: 'must start and end with a visible character, not white space',
        }),
      )
    },
  )

  it('keeps the domain rule and its message for everything else', () => {
    expect(keyOf('with inner spaces')).toEqual(E.right(O.some('with inner spaces')))
    expect(keyOf('é')).toEqual(
      E.left({ field: 'Idempotency-Key', problem: 'must be printable ASCII (0x20 to 0x7E)' }),
    )
    expect(keyOf('')).toEqual(E.left({ field: 'Idempotency-Key', problem: 'must not be empty' }))
  })

  it('states the same rule in its JSON Schema pattern', () => {
    const pattern = new RegExp(IdempotencyKeyHeader.schema['pattern'] as string)
    for (const key of ['a', 'a b', ' a', 'a ', ' ', 'é', '~!'])
      expect(pattern.test(key)).toBe(E.isRight(IdempotencyKeyHeader.decode(key)))
  })
})
