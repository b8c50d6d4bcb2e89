import { createMemoryApiKeyStore, createMemoryPetRepository, createSystemClock } from '@pets/adapters-memory'
import { createPet, getPet, listPets } from '@pets/domain'
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { createHttpApp, type HttpAppOptions } from '../src/index.js'

/** The key every app of these tests accepts; its id is `test-1`. */
export const KEY = 'the-test-key'

/** Options of createHttpApp on the in-memory adapters, with `overrides` on top. */
export const appOptions = (overrides: Partial<HttpAppOptions> = {}): HttpAppOptions => {
  const pets = createMemoryPetRepository()
  return {
    useCases: {
      listPets: listPets({ pets }),
      createPet: createPet({ pets }),
      getPet: getPet({ pets, clock: createSystemClock() }),
    },
    authenticator: createMemoryApiKeyStore({ keys: [{ key: KEY, name: 'test' }], idPrefix: 'test-' }),
    publicBaseUrl: 'https://api.example.com/v1',
    ...overrides,
  }
}

/** Serves createHttpApp on a free port; `fetch` paths against it, then `close`. */
export const serve = async (options: HttpAppOptions) => {
  const server = createServer(createHttpApp(options).callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    fetch: (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${port}${path}`, init),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A logger that keeps every line it is given. */
export const recordingLogger = (infoEnabled = true) => {
  const lines: Array<{ level: 'info' | 'error'; fields: Record<string, unknown>; message: string }> = []
  return {
    lines,
    info: (fields: object, message: string) =>
      void lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
    error: (fields: object, message: string) =>
      void lines.push({ level: 'error', fields: fields as Record<string, unknown>, message }),
    isLevelEnabled: (level: 'info' | 'error') => level === 'error' || infoEnabled,
  }
}

/** Sends raw bytes on a new connection and collects everything the server writes until it closes. */
export const raw = (port: number, text: string, { endAfterWrite = false } = {}) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text)
      if (endAfterWrite) socket.end()
    })
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
    // A deadline for a server that keeps the connection open: what came so far is the answer.
    setTimeout(() => {
      socket.destroy()
      resolve(answer)
    }, 2_000)
  })
