import { describe, expect, it } from 'vitest'
import { run, runLeft } from '@pets/domain/testing'
import { createPetsClient, MAX_RESPONSE_BYTES } from '../src/index.js'

const CHUNK = 64 * 1024

/** A 200 of valid JSON, `[` and `]` around `spaces` bytes of white space, sent in chunks; it counts what was read. */
const paddedArray = (spaces: number) => {
  const seen = { pulled: 0, cancelled: false }
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode('[')),
    pull: (controller) => {
      const size = Math.min(CHUNK, spaces - seen.pulled)
      if (size <= 0) {
        controller.enqueue(new TextEncoder().encode(']'))
        return controller.close()
      }
      seen.pulled += size
      controller.enqueue(new Uint8Array(size).fill(0x20))
    },
    cancel: () => void (seen.cancelled = true),
  })
  return {
    seen,
    response: new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }),
  }
}

const clientOf = (answer: () => Response) => {
  let attempts = 0
  const client = createPetsClient({
    baseUrl: 'http://pets.test/v1',
    apiKey: 'k',
    sleep: async () => {},
    fetch: async () => {
      attempts++
      return answer()
    },
  })
  return { client, attempts: () => attempts }
}

describe('the size of a response', () => {
  it('stops reading a body past MAX_RESPONSE_BYTES: an UndecodableResponse, the body cancelled, no retry', async () => {
    const answer = paddedArray(16 * MAX_RESPONSE_BYTES)
    const { client, attempts } = clientOf(() => answer.response)
    const error = await runLeft(client.listPets())
    expect(error).toMatchObject({
      _tag: 'UndecodableResponse',
      status: 200,
      reason: `the body is over ${MAX_RESPONSE_BYTES} bytes`,
    })
    expect(answer.seen.pulled).toBeLessThanOrEqual(MAX_RESPONSE_BYTES + 2 * CHUNK)
    expect(answer.seen.cancelled).toBe(true)
    expect(attempts()).toBe(1)
  })

  it('reads a body of MAX_RESPONSE_BYTES whole', async () => {
    const answer = paddedArray(MAX_RESPONSE_BYTES - 2)
    const page = await run(clientOf(() => answer.response).client.listPets())
    expect(page.pets).toEqual([])
  })

  it('leaves room for the largest page the service answers: 100 pets of 255 escaped astral characters', () => {
    const name = '\\ud83d\\udc36'.repeat(255)
    const pet = `{"id":9007199254740991,"name":"${name}","categoryId":9007199254740991,"status":"available"}`
    const page = `[${Array.from({ length: 100 }, () => pet).join(',')}]`
    expect(page.length).toBeLessThan(MAX_RESPONSE_BYTES / 3)
  })
})
