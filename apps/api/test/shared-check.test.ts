import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { sharedCheck } from '../src/shared-check.js'

// A check that answers when the test says, counting how often it was asked.
const aCheck = () => {
  let asked = 0
  const answers: Array<(answer: E.Either<string, void>) => void> = []
  return {
    asked: () => asked,
    answer: (value: E.Either<string, void>) => answers.splice(0).forEach((give) => give(value)),
    check: () => () => {
      asked++
      return new Promise<E.Either<string, void>>((resolve) => answers.push(resolve))
    },
  }
}

describe('sharedCheck: what /readyz asks the store', () => {
  it('runs one check at a time however many ask, and gives every caller its answer', async () => {
    const store = aCheck()
    const ready = sharedCheck(store.check, { everyMs: 1_000, now: () => 0 })
    const waiting = Array.from({ length: 500 }, () => ready()())
    expect(store.asked()).toBe(1)
    store.answer(E.left('down'))
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 500 }, () => E.left('down')))
  })

  it('asks again at most once per period, whatever the rate', async () => {
    let ms = 0
    const store = aCheck()
    const ready = sharedCheck(store.check, { everyMs: 1_000, now: () => ms })
    // 10 s of probes, 100 a second: ten checks, each shared by a hundred probes.
    const answers: Array<Promise<E.Either<string, void>>> = []
    for (; ms < 10_000; ms += 10) {
      answers.push(ready()())
      store.answer(E.right(undefined))
      await answers.at(-1)
    }
    expect(store.asked()).toBe(10)
    expect(await Promise.all(answers)).toHaveLength(1_000)
  })

  it('never runs a second check while one is still waiting, however long it takes', async () => {
    let ms = 0
    const store = aCheck()
    const ready = sharedCheck(store.check, { everyMs: 1_000, now: () => ms })
    // A database that takes 3 s to answer: probes every 100 ms all share the one check.
    const answers: Array<Promise<E.Either<string, void>>> = []
    for (; ms < 3_000; ms += 100) answers.push(ready()())
    expect(store.asked()).toBe(1)
    store.answer(E.left('slow'))
    expect(await Promise.all(answers)).toEqual(answers.map(() => E.left('slow')))
    // Answered, and its period long over: the next probe asks again.
    ready()()
    expect(store.asked()).toBe(2)
  })

  it('asks again after a check that threw, rather than sharing the defect', async () => {
    let asked = 0
    const ready = sharedCheck(
      () => () => {
        asked++
        return Promise.reject(new Error('a defect'))
      },
      { everyMs: 1_000, now: () => 0 },
    )
    await expect(ready()()).rejects.toThrow('a defect')
    await expect(ready()()).rejects.toThrow('a defect')
    expect(asked).toBe(2)
  })
})
