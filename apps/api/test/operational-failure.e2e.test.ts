import { createServer, type Server } from 'node:net'
import { describe, expect, inject, it } from 'vitest'
import { startServerWithoutTls, startServerWithUntrustedCertificate } from './support/fake-tls-postgres.js'
import { runBin as run } from './support/run-bin.js'

const listening = async (): Promise<{ server: Server; port: number }> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port }
}
// A port that was free a moment ago: nothing listens there, so a connection is refused.
const closedPort = async (): Promise<number> => {
  const { server, port } = await listening()
  await new Promise((resolve) => server.close(resolve))
  return port
}

const PASSWORD = 'e2e-password-not-to-print'
// One line, `animal-store: ` and what failed; no stack frame ("    at …") and no JSON.
const ONE_LINE = /^animal-store: [^\n]+\n$/

describe('an operational failure of the built bin', () => {
  it('migrate against a port where nothing listens: one line on stderr, naming DATABASE_URL, exit 1', async () => {
    const port = await closedPort()
    const result = await run(['migrate'], {
      DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/animals`,
    })
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `animal-store: migrate: PostgreSQL at postgres@127.0.0.1:${port}/animals (DATABASE_URL) cannot be ` +
        'reached: connection refused (ECONNREFUSED)\n',
    })
  })

  it('keys list on a database that does not exist: one line with its SQLSTATE', async () => {
    const url = new URL(inject('postgres').url)
    url.pathname = '/no_such_database_for_this_test'
    const result = await run(['keys', 'list'], { DATABASE_URL: url.href })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(ONE_LINE)
    expect(result.stderr).toMatch(
      /^animal-store: keys list: PostgreSQL at .*\/no_such_database_for_this_test \(DATABASE_URL\) refused the connection: database "no_such_database_for_this_test" does not exist \(3D000\)\n$/,
    )
  })

  it('keys list where sslmode asks for TLS that the server refuses, or whose certificate fails: one line naming sslmode', async () => {
    const withoutTls = await startServerWithoutTls()
    const untrusted = await startServerWithUntrustedCertificate()
    try {
      const refused = await run(['keys', 'list'], {
        DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${withoutTls.port}/animals?sslmode=require`,
      })
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `animal-store: keys list: PostgreSQL at postgres@127.0.0.1:${withoutTls.port}/animals (DATABASE_URL) ` +
          'refused TLS (sslmode): The server does not support SSL connections (08004)\n',
      })
      const failed = await run(['migrate'], {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${untrusted.port}/animals?sslmode=verify-full`,
      })
      expect(failed).toMatchObject({ code: 1, stdout: '' })
      // Node's words for the certificate vary (24 adds a hint about --use-system-ca); its code does not.
      expect(failed.stderr).toMatch(ONE_LINE)
      expect(failed.stderr).toMatch(
        new RegExp(
          `^animal-store: migrate: PostgreSQL at postgres@127\\.0\\.0\\.1:${untrusted.port}/animals \\(DATABASE_URL\\) ` +
            'failed the TLS check \\(sslmode\\): self-signed certificate[^\\n]* \\(DEPTH_ZERO_SELF_SIGNED_CERT\\)\\n$',
        ),
      )
    } finally {
      await Promise.all([withoutTls.close(), untrusted.close()])
    }
  })

  it('openapi --out into a directory that does not exist: one line naming --out', async () => {
    const result = await run(['openapi', '--out', '/nonexistent-directory/openapi.json'], {})
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'animal-store: openapi: cannot write /nonexistent-directory/openapi.json (--out): no such file or ' +
        'directory (ENOENT)\n',
    })
  })

  it('serve on a port in use: one line on stderr, and the fatal line of the log without a stack', async () => {
    const { server, port } = await listening()
    try {
      const result = await run([], { API_KEYS: 'operational-failure-e2e-key', PORT: String(port) })
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(
        `animal-store: serve: cannot listen on 127.0.0.1:${port} (HOST, PORT): address already in use (EADDRINUSE)\n`,
      )
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      const fatal = lines.filter((line) => line['level'] === 60)
      expect(fatal).toEqual([
        expect.objectContaining({
          msg: 'stopped on an error',
          err: { code: 'EADDRINUSE', message: `listen EADDRINUSE: address already in use 127.0.0.1:${port}` },
          reason: `serve: cannot listen on 127.0.0.1:${port} (HOST, PORT): address already in use (EADDRINUSE)`,
        }),
      ])
      expect(result.stdout).not.toContain('stack')
    } finally {
      server.close()
    }
  })

  it('serve on PostgreSQL that cannot be reached: the same, naming DATABASE_URL and never its password', async () => {
    const port = await closedPort()
    const result = await run([], {
      API_KEYS: 'operational-failure-e2e-key',
      PORT: '0',
      DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/animals`,
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `animal-store: serve: PostgreSQL at postgres@127.0.0.1:${port}/animals (DATABASE_URL) cannot be reached: ` +
        'connection refused (ECONNREFUSED)\n',
    )
    expect(result.stdout).toContain('"stopped on an error"')
    expect(result.stdout).not.toContain('stack')
    expect(result.stdout + result.stderr).not.toContain(PASSWORD)
  })

  it('serve with MIGRATE_ON_START=false on a database that does not exist: the same line, not a start that waits', async () => {
    // Waiting mends a database that is down, never one the server refuses (role, password, database, CONNECT).
    const url = new URL(inject('postgres').url)
    url.pathname = '/no_such_database_for_this_test'
    const result = await run([], {
      API_KEYS: 'operational-failure-e2e-key',
      PORT: '0',
      MIGRATE_ON_START: 'false',
      DATABASE_URL: url.href,
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(ONE_LINE)
    expect(result.stderr).toMatch(
      /^animal-store: serve: PostgreSQL at .* refused the connection: .*\(3D000\)\n$/,
    )
    expect(result.stdout).not.toContain('"listening"')
  })

  it('a HOST that is no address or host name is refused at start, exit 2', async () => {
    const result = await run([], { API_KEYS: 'operational-failure-e2e-key', HOST: '999.1.1.1' })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'HOST must be an IPv4 or IPv6 address or a host name, such as 0.0.0.0, :: or localhost',
    )
    expect(result.stderr).not.toContain('999.1.1.1')
  })
})
