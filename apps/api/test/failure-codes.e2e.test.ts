import { createServer, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startServerWithoutTls } from './support/fake-tls-postgres.js'
import { logLinesOf } from './support/log-lines.js'
import { runBin as run } from './support/run-bin.js'

// A frozen database: connections are accepted, and nothing is ever answered.
const startFrozenServer = async () => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      sockets.forEach((socket) => socket.destroy())
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

const fatalOf = (stdout: string) => logLinesOf(stdout).filter((line) => line.level === 60)

// README: the line gives why, and the error's code; pg gives none for its own failures of a connection.
describe('the code of a failure that pg reports without one', () => {
  it('a database that never answers: 08001 (no connection within the connect timeout), in the line and in err.code', async () => {
    const frozen = await startFrozenServer()
    try {
      const env = {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${frozen.port}/animals`,
        DATABASE_CONNECT_TIMEOUT_MS: '300',
      }
      const target = `PostgreSQL at postgres@127.0.0.1:${frozen.port}/animals (DATABASE_URL)`
      const keys = await run(['keys', 'list'], env)
      expect(keys).toEqual({
        code: 1,
        stdout: '',
        stderr: `animal-store: keys list: ${target} cannot be reached: Connection terminated due to connection timeout (08001)\n`,
      })
      const serve = await run([], { ...env, API_KEYS: 'failure-codes-e2e-key', PORT: '0' })
      expect(serve.code).toBe(1)
      expect(serve.stderr).toMatch(new RegExp(`^animal-store: serve: .* \\(08001\\)\\n$`))
      expect(fatalOf(serve.stdout)).toEqual([
        expect.objectContaining({ err: expect.objectContaining({ code: '08001' }) }),
      ])
    } finally {
      await frozen.close()
    }
  })

  it('sslmode=require on a server without TLS: 08004 (the server would not speak TLS), in err.code too', async () => {
    const withoutTls = await startServerWithoutTls()
    try {
      const result = await run([], {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${withoutTls.port}/postgres?sslmode=require`,
        API_KEYS: 'failure-codes-e2e-key',
        PORT: '0',
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(
        `animal-store: serve: PostgreSQL at postgres@127.0.0.1:${withoutTls.port}/postgres (DATABASE_URL) ` +
          'refused TLS (sslmode): The server does not support SSL connections (08004)\n',
      )
      expect(fatalOf(result.stdout)).toEqual([
        expect.objectContaining({
          err: { code: '08004', message: 'The server does not support SSL connections' },
        }),
      ])
    } finally {
      await withoutTls.close()
    }
  })
})
