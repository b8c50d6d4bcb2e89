import { describe, expect, it } from 'vitest'
import { errorBodyOf, memoryAppServedForAll } from './support/memory-app.js'

describe('a member given twice (in-process, in memory)', () => {
  const held = memoryAppServedForAll()

  it.each([
    ['name', '{"name":"Rex","name":"Max","categoryId":1}'],
    ['categoryId', '{"name":"Rex","categoryId":0.5,"categoryId":1}'],
    ['status', '{"name":"Rex","categoryId":1,"status":"sold","st\\u0061tus":"available"}'],
    [`${'k'.repeat(64)}…`, `{"${'k'.repeat(65)}":1,"${'k'.repeat(65)}":2}`],
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

  it.each([
    ['["a","b","b"]', '["a","b"]'],
    ['[1,"categoryId",0.5]', '[1,"categoryId"]'],
  ])('answers %s as %s: the items of a top-level array are no members', async (json, like) => {
    const answer = await held.served.post(json)
    expect(answer.status).toBe(400)
    expect(errorBodyOf(answer)).toEqual(errorBodyOf(await held.served.post(like)))
  })
})
