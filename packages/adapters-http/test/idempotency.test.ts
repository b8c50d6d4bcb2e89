import { createMemoryPetRepository } from '@pets/adapters-memory'
import { createPet } from '@pets/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BEARER, errorBodyOf, KEYS, memoryApp, serveApp, type ServedApp } from './support/memory-app.js'

describe('POST /v1/pets with an Idempotency-Key (in-process, in memory)', () => {
  let app: ReturnType<typeof memoryApp>
  let served: ServedApp
  beforeEach(async () => {
    app = memoryApp()
    served = await serveApp(app.options)
  })
  afterEach(async () => {
    await served.close()
  })
  const key = (value: string) => ({ 'Idempotency-Key': value })

  it('answers a retry with the same body exactly as the first time, adding one pet', async () => {
    const first = await served.post('{"name":"Rex","categoryId":1}', key('order-1'))
    const again = await served.post('{"name":"Rex","categoryId":1}', key('order-1'))
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers['location']).toBe(first.headers['location'])
    expect(app.added()).toBe(1)
  })

  it('takes a body with other key order and white space as the same body', async () => {
    const first = await served.post('{"name":"Rex","categoryId":1,"status":"sold"}', key('k'))
    const again = await served.post(
      '{ "status" : "sold",\n "categoryId": 1.0, "name": "R\\u0065x" }',
      key('k'),
    )
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(app.added()).toBe(1)
  })

  it('answers 422 idempotency_key_reused for the same key with another body, adding nothing', async () => {
    await served.post('{"name":"Rex","categoryId":1}', key('k'))
    for (const other of [
      '{"name":"Tom","categoryId":1}',
      '{"name":"Rex","categoryId":1,"status":"available"}',
    ]) {
      const answer = await served.post(other, key('k'))
      expect(answer.status).toBe(422)
      expect(errorBodyOf(answer).code).toBe('idempotency_key_reused')
    }
    expect(app.added()).toBe(1)
  })

  it('keeps the keys of different API keys apart', async () => {
    const mine = await served.post('{"name":"Rex","categoryId":1}', key('k'))
    const theirs = await served.post('{"name":"Tom","categoryId":2}', {
      ...key('k'),
      Authorization: `Bearer ${KEYS[1]}`,
    })
    expect(theirs.status).toBe(201)
    expect(JSON.parse(theirs.text)).toMatchObject({ name: 'Tom' })
    expect(JSON.parse(theirs.text).id).not.toBe(JSON.parse(mine.text).id)
    expect(app.added()).toBe(2)
  })

  it('adds one pet for 50 concurrent requests with one key: 201 with that pet, or 409 idempotency_key_in_use', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => served.post('{"name":"Rex","categoryId":1}', key('burst'))),
    )
    expect(app.added()).toBe(1)
    const created = answers.filter((a) => a.status === 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(new Set(created.map((a) => a.text)).size).toBe(1)
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expect(answer.status).toBe(409)
      expect(errorBodyOf(answer).code).toBe('idempotency_key_in_use')
    }
  })

  it('adds a pet for every request without the header, as before', async () => {
    await served.post('{"name":"Rex","categoryId":1}')
    await served.post('{"name":"Rex","categoryId":1}')
    expect(app.added()).toBe(2)
  })

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'x'.repeat(256)],
    ['not ASCII', 'clé'],
    ['holding a tab', 'a\tb'],
  ])('answers 400 validation_failed naming Idempotency-Key for a key that is %s', async (_, value) => {
    const answer = await served.post('{"name":"Rex","categoryId":1}', key(value))
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toContain('Idempotency-Key')
    expect(app.added()).toBe(0)
  })

  it('accepts a key of 255 printable characters, spaces inside included', async () => {
    const value = `a${' !"#$%&()*+,-./:;<=>?@[\\]^_`{|}~'.repeat(8).slice(0, 253)}z`
    expect(value).toHaveLength(255)
    expect((await served.post('{"name":"Rex","categoryId":1}', key(value))).status).toBe(201)
    expect((await served.post('{"name":"Rex","categoryId":1}', key(value))).status).toBe(201)
    expect(app.added()).toBe(1)
  })

  it('answers 400 for a key sent twice, rather than joining the two', async () => {
    const answer = await served.send({
      method: 'POST',
      path: '/v1/pets',
      headers: { Authorization: BEARER, 'Content-Type': 'application/json', 'Idempotency-Key': ['a', 'b'] },
      body: '{"name":"Rex","categoryId":1}',
    })
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toMatch(/Idempotency-Key must be sent at most once/)
  })

  it('names both a bad field and a bad key in one 400', async () => {
    const answer = await served.post('{"name":"","categoryId":1}', key(''))
    expect(answer.status).toBe(400)
    const { message } = errorBodyOf(answer)
    expect(message).toContain('name')
    expect(message).toContain('Idempotency-Key')
  })

  it('answers 415 before looking at the key, and records nothing for a refused body', async () => {
    const refused = await served.post('{"name":"Rex","categoryId":1}', {
      ...key(''),
      'Content-Type': 'text/plain',
    })
    expect(refused.status).toBe(415)
    const invalid = await served.post('{"name":"Rex","categoryId":0}', key('k'))
    expect(invalid.status).toBe(400)
    // The failed request left no record: the key is free for a different, valid body.
    expect((await served.post('{"name":"Rex","categoryId":2}', key('k'))).status).toBe(201)
  })

  it('answers 501 for a key when the host keeps no record of such requests', async () => {
    const { options } = memoryApp()
    const pets = createMemoryPetRepository()
    const useCases = { ...options.useCases, createPet: createPet({ pets }) }
    const bare = await serveApp({ ...options, useCases })
    try {
      const answer = await bare.post('{"name":"Rex","categoryId":1}', key('k'))
      expect(answer.status).toBe(501)
      expect((await bare.post('{"name":"Rex","categoryId":1}')).status).toBe(201)
    } finally {
      await bare.close()
    }
  })
})
