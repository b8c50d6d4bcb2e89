import { describe, expect, it } from 'vitest'
import { expectValidationFailed, mentions } from './expect-error.js'
import { PUBLIC_BASE_URL, useService, type StartService } from './harness.js'
import { addPet, listPage, postJson, postPet, STATUSES, type WirePet } from './pets-client.js'

const MAX_ID = 9007199254740991

/** CONTRACT: POST /v1/pets adds a pet from a NewPet body, every field checked, nothing dropped. */
export const describeCreatePet = (start: StartService) =>
  describe('POST /v1/pets', () => {
    const svc = useService(start)

    it('answers 201 with exactly id, name, categoryId and status, and a Location under PUBLIC_BASE_URL', async () => {
      const res = await postPet(svc(), { name: 'Rex', categoryId: 7, status: 'pending' })
      expect(res.status).toBe(201)
      expect(res.headers.get('content-type')).toMatch(/^application\/json\s*(;|$)/)
      const pet = (await res.json()) as WirePet
      expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status'])
      expect(pet).toEqual({ id: pet.id, name: 'Rex', categoryId: 7, status: 'pending' })
      expect(Number.isSafeInteger(pet.id) && pet.id >= 1).toBe(true)
      expect(res.headers.get('location')).toBe(`${PUBLIC_BASE_URL}/pets/${pet.id}`)
    })

    it('gives each new pet a larger id than the one before, also for concurrent requests', async () => {
      const first = await addPet(svc())
      const second = await addPet(svc())
      expect(second.id).toBeGreaterThan(first.id)
      const concurrent = await Promise.all([1, 2, 3, 4, 5].map(() => addPet(svc())))
      const ids = concurrent.map((pet) => pet.id)
      expect(new Set(ids).size).toBe(5)
      expect(Math.min(...ids)).toBeGreaterThan(second.id)
    })

    it('lists and finds the added pet exactly as it answered', async () => {
      const pet = await addPet(svc(), { name: 'Findable', categoryId: 3, status: 'sold' })
      const { pets } = await listPage(svc(), `/v1/pets?after=${pet.id - 1}&limit=1`)
      expect(pets).toEqual([pet])
      const found = await svc().authed(`/v1/pets/${pet.id}`)
      expect(await found.json()).toEqual(pet)
    })

    it('makes a pet added without status available', async () => {
      const pet = await addPet(svc())
      expect(pet.status).toBe('available')
    })

    it.each(STATUSES)('keeps status %s as sent', async (status) => {
      expect((await addPet(svc(), { status })).status).toBe(status)
    })

    it.each([
      { what: 'leading and trailing spaces', name: '  Rex  ' },
      { what: 'emoji and accents', name: 'Ünïcødé 🐕‍🦺' },
      { what: '255 astral code points', name: '🐈'.repeat(255) },
      { what: '255 ASCII characters', name: 'x'.repeat(255) },
      { what: 'a single character', name: 'R' },
      { what: 'quotes, backslashes and markup', name: `"O'Brien" \\ <b>&amp;</b>` },
    ])('keeps a name with $what exactly as sent', async ({ name }) => {
      const pet = await addPet(svc(), { name })
      expect(pet.name).toBe(name)
      expect(await (await svc().authed(`/v1/pets/${pet.id}`)).json()).toEqual(pet)
    })

    it.each([
      { what: '256 ASCII characters', json: JSON.stringify('x'.repeat(256)) },
      { what: '256 astral code points', json: JSON.stringify('🐈'.repeat(256)) },
      { what: 'only white space', json: '" \\t\\n "' },
      { what: 'an empty string', json: '""' },
      { what: 'a number', json: '42' },
      { what: 'null', json: 'null' },
      { what: 'an object', json: '{"first":"Rex"}' },
      { what: 'U+0000', json: '"Re\\u0000x"' },
      { what: 'an unpaired high surrogate', json: '"Rex\\ud800"' },
      { what: 'an unpaired low surrogate', json: '"\\udc00Rex"' },
    ])('a name that is $what gets 400 validation_failed naming name', async ({ json }) => {
      await expectValidationFailed(await postJson(svc(), `{"name":${json},"categoryId":1}`), 'name')
    })

    it('a missing name gets 400 validation_failed naming name', async () => {
      await expectValidationFailed(await postPet(svc(), { categoryId: 1 }), 'name')
    })

    it.each([1, MAX_ID])('accepts categoryId %s and returns it exactly', async (categoryId) => {
      expect((await addPet(svc(), { categoryId })).categoryId).toBe(categoryId)
    })

    it.each(['0', '-1', '9007199254740992', '1.5', '"1"', 'null', 'true', '[1]'])(
      'categoryId %s gets 400 validation_failed naming categoryId',
      async (json) => {
        await expectValidationFailed(
          await postJson(svc(), `{"name":"Rex","categoryId":${json}}`),
          'categoryId',
        )
      },
    )

    it('a missing categoryId gets 400 validation_failed naming categoryId', async () => {
      await expectValidationFailed(await postPet(svc(), { name: 'Rex' }), 'categoryId')
    })

    it.each(['"Available"', '"SOLD"', '"lost"', '""', '1'])(
      'status %s gets 400 validation_failed naming status',
      async (json) => {
        await expectValidationFailed(
          await postJson(svc(), `{"name":"Rex","categoryId":1,"status":${json}}`),
          'status',
        )
      },
    )

    it.each([
      { field: 'id', json: '"id":5' },
      { field: 'color', json: '"color":"brown"' },
      { field: '__proto__', json: '"__proto__":{"status":"sold"}' },
      { field: 'constructor', json: '"constructor":{}' },
      { field: 'Name', json: '"Name":"Rex"' },
    ])('an unknown field $field gets 400 validation_failed naming it', async ({ field, json }) => {
      await expectValidationFailed(await postJson(svc(), `{"name":"Rex","categoryId":1,${json}}`), field)
    })

    it('an unknown field with an empty name gets 400 validation_failed naming it as ""', async () => {
      const message = await expectValidationFailed(
        await postJson(svc(), '{"name":"Rex","categoryId":1,"":1}'),
        '""',
      )
      expect(message).not.toMatch(/\bbody\b/)
    })

    it('a body with several bad fields gets one 400 naming each of them', async () => {
      const body = { name: ' ', categoryId: 0, status: 'lost' }
      await expectValidationFailed(await postPet(svc(), body), 'name', 'categoryId', 'status')
    })

    // CONTRACT: a 400 names every offending field, also beside a field given twice or a key refused for
    // reaching a prototype (their answer named that alone: the other fields went unread).
    it.each([
      {
        what: 'a field given twice',
        json: '{"name":"Rex","name":"Max","categoryId":0}',
        words: ['name', 'categoryId'],
      },
      {
        what: 'a field given twice',
        json: '{"status":"sold","status":"lost","name":"Rex","categoryId":1,"id":5}',
        words: ['status', 'id'],
      },
      {
        what: 'a key that reaches a prototype',
        json: '{"name":{"__proto__":{}},"categoryId":0}',
        words: ['__proto__', 'name', 'categoryId'],
      },
      {
        what: 'a key that reaches a prototype',
        json: '{"name":"Rex","categoryId":1,"constructor":1,"color":"brown"}',
        words: ['constructor', 'color'],
      },
    ])('a body with $what names its other bad fields too: $json', async ({ json, words }) => {
      await expectValidationFailed(await postJson(svc(), json), ...words)
    })

    it('a URL over 4 KiB with a body of bad fields names the URL and each field', async () => {
      const res = await svc().authed(`/v1/pets?${'a'.repeat(5000)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":" ","categoryId":0,"id":1}',
      })
      const message = await expectValidationFailed(res, 'URL', 'name', 'categoryId', 'id')
      expect(message).not.toContain('aaaa')
    })

    it('a body with unknown fields and bad values names the unknown fields and the bad values', async () => {
      const unknownOnly = await expectValidationFailed(
        await postPet(svc(), { name: 'Rex', categoryId: 1, id: 1, color: 'brown' }),
        'id',
        'color',
      )
      const mixed = await expectValidationFailed(
        await postPet(svc(), { name: '', categoryId: 'one', id: 1, color: 'brown' }),
        'id',
        'color',
      )
      // The unknown fields' message may list the allowed ones; the bad values must add to it.
      expect(mentions(mixed, 'name')).toBeGreaterThan(mentions(unknownOnly, 'name'))
      expect(mentions(mixed, 'categoryId')).toBeGreaterThan(mentions(unknownOnly, 'categoryId'))
    })
  })
