import { describe, expect, it } from 'vitest'
import { sharedAnswer } from '../src/shared-check.js'

// An answer that comes when the test says, counting how often it was asked.
const anAsk = () => {
  let asked = 0
  const pending: Array<{ resolve: (page: string) => void; reject: (error: Error) => void }> = []
  return {
    asked: () => asked,
    answer: (page: string) => pending.splice(0).forEach((p) => p.resolve(page)),
    fail: (error: Error) => pending.splice(0).forEach((p) => p.reject(error)),
    ask: () => {
      asked++
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }))
    },
  }
}

describe('sharedAnswer: what the primary does with the scrapes of every worker', () => {
  it('asks once for any number of callers that come while it waits, and gives each the answer', async () => {
    const workers = anAsk()
    const page = sharedAnswer(workers.ask, { everyMs: 1_000, now: () => 0 })
    const waiting = Array.from({ length: 500 }, () => page())
    expect(workers.asked()).toBe(1)
    workers.answer('page 1')
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['page 1']))
  })

  it('serves an answer again until the period after it started, then asks again', async () => {
    let ms = 0
    const workers = anAsk()
    const page = sharedAnswer(workers.ask, { everyMs: 1_000, now: () => ms })
    // 10 s of scrapes, 100 a second: ten collections, each shared by a hundred scrapes.
    const pages: Array<string> = []
    for (; ms < 10_000; ms += 10) {
      const answer = page()
      workers.answer(`page at ${ms}`)
      pages.push(await answer)
    }
    expect(workers.asked()).toBe(10)
    expect(new Set(pages).size).toBe(10)
    expect(pages[99]).toBe('page at 0')
    expect(pages[100]).toBe('page at 1000')
  })

  it('never asks twice at once, however long an answer takes', async () => {
    let ms = 0
    const workers = anAsk()
    const page = sharedAnswer(workers.ask, { everyMs: 1_000, now: () => ms })
    const waiting: Array<Promise<string>> = []
    for (; ms < 3_000; ms += 100) waiting.push(page())
    expect(workers.asked()).toBe(1)
    workers.answer('late')
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['late']))
    // Answered, its period long over: the next caller asks again.
    void page()
    expect(workers.asked()).toBe(2)
  })

  it('gives a failure to every caller as a rejection, never as an answer, and asks again after the period', async () => {
    let ms = 0
    const workers = anAsk()
    const page = sharedAnswer(workers.ask, { everyMs: 1_000, now: () => ms })
    const first = page()
    const second = page()
    workers.fail(new Error('Operation timed out.'))
    await expect(first).rejects.toThrow('Operation timed out.')
    await expect(second).rejects.toThrow('Operation timed out.')
    // Within its period, a failure stays a failure: a flood does not ask at its own rate.
    ms = 500
    await expect(page()).rejects.toThrow('Operation timed out.')
    expect(workers.asked()).toBe(1)
    ms = 1_000
    const again = page()
    workers.answer('page 2')
    expect(await again).toBe('page 2')
    expect(workers.asked()).toBe(2)
  })

  it('with a period of 0, shares only the answer under way (a worker waiting for its primary)', async () => {
    const primary = anAsk()
    const page = sharedAnswer(primary.ask, { everyMs: 0, now: () => 0 })
    const both = [page(), page()]
    primary.answer('page 1')
    expect(await Promise.all(both)).toEqual(['page 1', 'page 1'])
    const next = page()
    expect(primary.asked()).toBe(2)
    primary.answer('page 2')
    expect(await next).toBe('page 2')
  })
})
