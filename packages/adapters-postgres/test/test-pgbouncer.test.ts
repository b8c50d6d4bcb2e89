import { createServer } from 'node:net'
import { describe, expect, inject, it } from 'vitest'
import { HOW_TO_PROVIDE_PGBOUNCER, startTestPgBouncer } from '../src/testing/index.js'

// A PgBouncer test never skips: without a PgBouncer the helper throws, saying how to provide one.
describe('startTestPgBouncer without a PgBouncer', () => {
  const serverUrl = inject('postgres').url

  it('fails, saying how to provide one, when the binary is missing', async () => {
    const error = await startTestPgBouncer(serverUrl, {}, { PGBOUNCER_BIN: '/nonexistent/pgbouncer' }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain('/nonexistent/pgbouncer does not exist')
    expect((error as Error).message).toContain(HOW_TO_PROVIDE_PGBOUNCER)
  })

  it('fails, saying how to provide one, when TEST_PGBOUNCER_URL answers nothing', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number }
        server.close(() => resolve(free))
      })
    })
    const error = await startTestPgBouncer(
      serverUrl,
      {},
      {
        TEST_PGBOUNCER_URL: `postgres://postgres:secret@127.0.0.1:${port}/postgres`,
      },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/^TEST_PGBOUNCER_URL is .*but no PgBouncer answers there/)
    expect((error as Error).message).not.toContain('secret')
    expect((error as Error).message).toContain(HOW_TO_PROVIDE_PGBOUNCER)
  })
})
