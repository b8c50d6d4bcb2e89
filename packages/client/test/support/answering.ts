import { createPetsClient } from '../../src/index.js'

/** A client whose every request gets this one response, never retried. */
export const answering = (status: number, body: string, headers: Record<string, string> = {}) =>
  createPetsClient({
    baseUrl: 'http://pets.test/v1',
    apiKey: 'k',
    retry: { maxAttempts: 1 },
    fetch: async () =>
      new Response(body, { status, headers: { 'Content-Type': 'application/json', ...headers } }),
  })
