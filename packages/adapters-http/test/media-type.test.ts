import { describe, expect, it } from 'vitest'
import { errorBodyOf, memoryAppServedForAll } from './support/memory-app.js'

const A_PET = '{"name":"Rex","categoryId":1}'

// CONTRACT: POST /v1/pets takes `application/json`, parameters allowed, a charset only if it names UTF-8;
// anything else is 415. Media types, parameter names and content codings are case-insensitive (RFC 9110).
describe('the media type and content coding of a POST body', () => {
  const held = memoryAppServedForAll()

  it.each(['APPLICATION/JSON', 'Application/Json; charset=utf-8', 'application/JSON;charset="UTF-8"'])(
    'adds a pet sent as %s: the media type is case-insensitive',
    async (contentType) => {
      const answer = await held.served.post(A_PET, { 'Content-Type': contentType })
      expect(answer.status).toBe(201)
    },
  )

  it.each(['application/json; CHARSET=latin1', 'application/json; Charset="ISO-8859-1"'])(
    'answers 415 to %s: a charset is read whatever the case of its name',
    async (contentType) => {
      const answer = await held.served.post(A_PET, { 'Content-Type': contentType })
      expect(answer.status).toBe(415)
      expect(errorBodyOf(answer)).toMatchObject({
        code: 'unsupported_media_type',
        message: 'The request body must be encoded as UTF-8.',
      })
    },
  )

  it.each(['application/json; charset=" utf-8"', 'application/json; charset="utf-8 "'])(
    'answers 415 to %s: white space inside a quoted charset makes no label of UTF-8',
    async (contentType) => {
      const answer = await held.served.post(A_PET, { 'Content-Type': contentType })
      expect(answer.status).toBe(415)
      expect(errorBodyOf(answer).code).toBe('unsupported_media_type')
    },
  )

  it.each(['IDENTITY', 'Identity'])(
    'adds a pet sent with Content-Encoding: %s: the coding is case-insensitive',
    async (coding) => {
      const answer = await held.served.post(A_PET, { 'Content-Encoding': coding })
      expect(answer.status).toBe(201)
    },
  )
})
