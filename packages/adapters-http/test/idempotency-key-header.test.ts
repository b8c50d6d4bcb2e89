import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Context } from 'koa'
import { describe, expect, it } from 'vitest'
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
