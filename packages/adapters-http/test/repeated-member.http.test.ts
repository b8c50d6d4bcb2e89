import { describe, expect, it } from 'vitest'
import { errorBodyOf, memoryAppServedForAll } from './support/memory-app.js'

describe('a member given twice (in-process, in memory)', () => {
  const held = memoryAppServedForAll()

  it.each([
    ['name', '{"name":"Rex","name":"Max","categoryId":1}'],
    ['categoryId', '{"name":"Rex","categoryId":0.5,"categoryId":1}'],
    ['status', '{"name":"Rex","categoryId":1,"status":"sold","st\\u0061tus":"available"}'],
    [`${'k'.repeat(64)}…`, `{"name":"Rex","categoryId":1,"${'k'.repeat(65)}":1,"${'k'.repeat(65)}":2}`],
  ])(
    'refuses %s given twice with 400 naming it, adding nothing (JSON.parse would keep the last)',
    async (name, json) => {
      const before = held.app.added()
      const answer = await held.served.post(json)
      expect(answer.status).toBe(400)
      expect(errorBodyOf(answer)).toMatchObject({
        code: 'validation_failed',
        message: `Invalid request: ${name} is given more than once.`,
      })
      expect(held.app.added()).toBe(before)
    },
  )

  // CONTRACT: a 400 names every offending field; the one given twice is named for that alone.
  it.each([
    [
      '{"name":"Rex","name":"Max","categoryId":0,"id":1}',
      'name is given more than once; categoryId must be an integer from 1 to 9007199254740991; id is not a field of a new pet (allowed: name, categoryId, status)',
    ],
    ['{"k":1,"k":2}', 'k is given more than once; name is required; categoryId is required'],
    [
      '{"categoryId":0.5,"categoryId":9007199254740990.5,"name":" "}',
      'categoryId is given more than once; name must contain at least one character that is not white space',
    ],
  ])('names the other offending fields of %s too', async (json, issues) => {
    const answer = await held.served.post(json)
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer).message).toBe(`Invalid request: ${issues}.`)
  })

  it.each([
    ['["a","b","b"]', '["a","b"]'],
    ['[1,"categoryId",0.5]', '[1,"categoryId"]'],
  ])('answers %s as %s: the items of a top-level array are no members', async (json, like) => {
    const answer = await held.served.post(json)
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer)).toEqual(errorBodyOf(await held.served.post(like)))
  })
})
