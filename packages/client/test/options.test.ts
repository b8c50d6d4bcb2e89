import { describe, expect, it } from 'vitest'
import { createPetsClient } from '../src/index.js'

describe('the options of the client, checked when it is built', () => {
  it('refuses a base URL that is not an absolute http URL', () => {
    expect(() => createPetsClient({ baseUrl: 'pets.internal/v1', apiKey: 'k' })).toThrow(/baseUrl/)
  })

  it('refuses a base URL with a query or a fragment, an empty one too: the paths would follow it', () => {
    for (const baseUrl of [
      'http://x.test/v1?a=1',
      'http://x.test/v1#top',
      'http://x.test/v1?',
      'http://x.test/v1#',
    ])
      expect(() => createPetsClient({ baseUrl, apiKey: 'k' })).toThrow(
        new TypeError(`baseUrl must be an absolute http or https URL without query or fragment: ${baseUrl}`),
      )
  })

  it('refuses a base URL that holds credentials, without showing them: fetch refuses every request to it', () => {
    for (const baseUrl of [
      'http://user:s3cret@x.test/v1',
      'http://s3cret@x.test/v1',
      'http://:s3cret@x.test/v1',
    ]) {
      const build = () => createPetsClient({ baseUrl, apiKey: 'k' })
      expect(build).toThrow(TypeError)
      expect(build).toThrow(/credentials/)
      expect(build).not.toThrow(/s3cret/)
    }
  })

  it('refuses an apiKey that fetch cannot send as a header, without showing it, and sends what it can', async () => {
    for (const apiKey of ['sec\nret', 'sec\r\nret', '\nsecret', 'sec\0ret', 'secret\u0100', 'secret🐶'])
      expect(() => createPetsClient({ baseUrl: 'http://x.test/v1', apiKey })).toThrow(
        new TypeError(
          'apiKey cannot be sent in an Authorization header: it holds a line break, a NUL or a character ' +
            'above U+00FF (the key is not shown)',
        ),
      )
    // fetch drops white space at the end of a header value, as HTTP does: the key's end, here.
    const sent: Array<string | null> = []
    for (const apiKey of ['k1 ', 'k1\n', 'k1\r\n\t']) {
      const client = createPetsClient({
        baseUrl: 'http://x.test/v1',
        apiKey,
        fetch: async (input, init) => {
          sent.push(new Request(input, init).headers.get('Authorization'))
          return Response.json([])
        },
      })
      expect((await client.listPets({})())._tag).toBe('Right')
    }
    expect(sent).toEqual(['Bearer k1', 'Bearer k1', 'Bearer k1'])
  })

  it('refuses bounds that make no sense', () => {
    expect(() =>
      createPetsClient({ baseUrl: 'http://x.test/v1', apiKey: 'k', retry: { maxAttempts: 0 } }),
    ).toThrow(/maxAttempts/)
    expect(() =>
      createPetsClient({ baseUrl: 'http://x.test/v1', apiKey: 'k', retry: { maxTotalWaitMs: -1 } }),
    ).toThrow(/maxTotalWaitMs/)
    // setTimeout would wait 1 ms for either, and a Retry-After of days would become an instant retry.
    expect(() =>
      createPetsClient({ baseUrl: 'http://x.test/v1', apiKey: 'k', retry: { defaultDelayMs: 2 ** 31 } }),
    ).toThrow('retry.defaultDelayMs must be from 0 to 2147483647 (ms), not 2147483648')
    expect(() =>
      createPetsClient({ baseUrl: 'http://x.test/v1', apiKey: 'k', retry: { maxTotalWaitMs: 2 ** 40 } }),
    ).toThrow(/maxTotalWaitMs/)
  })

  it('refuses a timeoutMs that no timer can keep, naming the range, and takes the largest that fits', () => {
    const withTimeout = (timeoutMs: number) => () =>
      createPetsClient({ baseUrl: 'http://x.test/v1', apiKey: 'k', timeoutMs })
    for (const timeoutMs of [-1, 0, 0.5, Infinity, NaN, 2 ** 31, 2 ** 40])
      expect(withTimeout(timeoutMs)).toThrow(
        new RangeError(`timeoutMs must be an integer from 1 to 2147483647 (ms), not ${timeoutMs}`),
      )
    expect(withTimeout(2 ** 31 - 1)).not.toThrow()
  })

  it('takes a numeric option given as undefined, as plain JavaScript may give it, for its default', async () => {
    const headers: Record<string, string> = {}
    let sent = 0
    const slept: Array<number> = []
    const client = createPetsClient({
      baseUrl: 'http://x.test/v1',
      apiKey: 'k',
      retry: { maxAttempts: undefined, maxTotalWaitMs: undefined, defaultDelayMs: undefined },
      timeoutMs: undefined,
      sleep: async (ms) => void slept.push(ms),
      fetch: async () => {
        sent++
        return new Response('', { status: 503, headers })
      },
    })
    // maxAttempts 3, defaultDelayMs 1000.
    await client.listPets()()
    expect({ sent, slept }).toEqual({ sent: 3, slept: [1000, 1000] })
    // maxTotalWaitMs 10000: a second wait of 6 s would take the sum to 12 s.
    sent = 0
    slept.length = 0
    headers['Retry-After'] = '6'
    await client.listPets()()
    expect({ sent, slept }).toEqual({ sent: 2, slept: [6000] })
    expect(() =>
      createPetsClient({ baseUrl: 'http://x.test/v1', apiKey: 'k', retry: undefined, timeoutMs: undefined }),
    ).not.toThrow()
  })
})
