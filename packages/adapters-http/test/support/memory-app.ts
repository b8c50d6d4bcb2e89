import {
  createMemoryApiKeyStore,
  createMemoryIdempotentPetCreations,
  createMemoryPetRepository,
} from '@pets/adapters-memory'
import { createPet, getPet, listPets, type PetRepository } from '@pets/domain'
import { aClock } from '@pets/domain/testing'
import { Agent, createServer, request, type OutgoingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll } from 'vitest'
import {
  answerEveryRequest,
  APP_ANSWERS_EVERY_REQUEST,
  createHttpApp,
  inOrder,
  type HttpAppOptions,
} from '../../src/index.js'

/** The two keys every app of these tests accepts, with the ids `key-1` and `key-2`. */
export const KEYS = ['first-test-key', 'second-test-key'] as const
export const BEARER = `Bearer ${KEYS[0]}`

/**
 * createHttpApp on the in-memory adapters, Idempotency-Key included, with `overrides` on top.
 * `added()` counts the pets the repository has added.
 */
export const memoryApp = (overrides: Partial<HttpAppOptions> = {}) => {
  const repository = createMemoryPetRepository()
  let added = 0
  const pets: PetRepository = {
    ...repository,
    add: (data) => async () => {
      const result = await repository.add(data)()
      if (result._tag === 'Right') added++
      return result
    },
  }
  const clock = aClock('2026-11-22T12:00:00Z')
  const options: HttpAppOptions = {
    useCases: {
      listPets: listPets({ pets }),
      createPet: createPet({ pets, creations: createMemoryIdempotentPetCreations(pets), clock }),
      getPet: getPet({ pets, clock }),
    },
    authenticator: createMemoryApiKeyStore({
      keys: KEYS.map((key, i) => ({ key, name: `test ${i + 1}` })),
      idPrefix: 'key-',
    }),
    publicBaseUrl: 'https://api.example.com/v1',
    ...overrides,
  }
  return { options, added: () => added }
}

/** An answer as node:http gives it: status, headers (lower-case names) and the body's text. */
export type Answer = {
  readonly status: number
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly text: string
}

export type Sent = {
  readonly method?: string
  readonly path: string
  readonly headers?: OutgoingHttpHeaders
  readonly body?: string | Buffer
}

/**
 * Serves an app on 127.0.0.1 with node's own server (maxHeaderSize 16 KiB, APP_ANSWERS_EVERY_REQUEST and
 * answerEveryRequest, as apps/api does), and sends requests over kept-alive connections: what fetch cannot send,
 * such as any header value node:http allows, is sent as given.
 */
export const serveApp = async (options: HttpAppOptions) => {
  const handle = inOrder(createHttpApp(options).callback())
  const server = createServer({ maxHeaderSize: 16 * 1024, ...APP_ANSWERS_EVERY_REQUEST }, handle)
  answerEveryRequest(server, handle)
  // Longer than any pause between requests of a test, so a kept-alive connection is never closed under one.
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const send = ({ method = 'GET', path, headers = {}, body }: Sent): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        const chunks: Array<Buffer> = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        )
      })
      req.on('error', reject)
      req.end(body)
    })
  return {
    port,
    send,
    /** POSTs a JSON text to /v1/pets with the first key. */
    post: (body: string, headers: OutgoingHttpHeaders = {}) =>
      send({
        method: 'POST',
        path: '/v1/pets',
        headers: { Authorization: BEARER, 'Content-Type': 'application/json', ...headers },
        body,
      }),
    close: async () => {
      agent.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type ServedApp = Awaited<ReturnType<typeof serveApp>>

/** The Error body of an answer, failing unless it is exactly `{ code, message, status }` with the HTTP status. */
export const errorBodyOf = (answer: Answer): { code: string; message: string; status: number } => {
  const body = JSON.parse(answer.text) as { code: string; message: string; status: number }
  if (Object.keys(body).sort().join() !== 'code,message,status' || body.status !== answer.status)
    throw new Error(`not an Error body for ${answer.status}: ${answer.text}`)
  return body
}

/**
 * For a describe block: a memoryApp served from its beforeAll to its afterAll. Read `app` and `served` in the
 * tests, once beforeAll has run.
 */
export const memoryAppServedForAll = (overrides: Partial<HttpAppOptions> = {}) => {
  const held = {} as { app: ReturnType<typeof memoryApp>; served: ServedApp }
  beforeAll(async () => {
    held.app = memoryApp(overrides)
    held.served = await serveApp(held.app.options)
  })
  afterAll(() => held.served.close())
  return held
}
