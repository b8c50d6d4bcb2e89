import { openFreshDatabase } from '@pets/adapters-postgres/testing'
import { request, type ClientRequest } from 'node:http'
import { inject } from 'vitest'
import { startTestService, type ChildService } from './test-service.js'

/** The key of API_KEYS that every cluster started here accepts. */
export const CLUSTER_KEY = 'cluster-e2e-key-9b77d0'

/** An answer as node:http gives it, read whole: status, `Connection` header, body text. */
export type ClusterAnswer = { status: number; connection: string | undefined; body: string }

/** The answer to `req`, once read whole; rejects with the request's error. */
export const answerOf = (req: ClientRequest): Promise<ClusterAnswer> =>
  new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }))
    })
    req.on('error', reject)
  })

/** A GET with the key, on a fresh connection each time, so that the primary's round robin spreads the requests. */
export const get = (url: string, path: string): Promise<ClusterAnswer> => {
  const req = request(`${url}${path}`, { agent: false, headers: { Authorization: `Bearer ${CLUSTER_KEY}` } })
  req.end()
  return answerOf(req)
}

/** The log lines of every process of the service whose message is `msg`, parsed. */
export const lines = (svc: ChildService, msg: string) =>
  svc
    .output()
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/**
 * The built service with WEB_CONCURRENCY=2 (and `env`) on an empty database of its own; `close` kills it and drops
 * the database.
 */
export const startTwoWorkers = async (
  env: Readonly<Record<string, string>> = {},
): Promise<{ svc: ChildService; close: () => Promise<void> }> => {
  // WEB_CONCURRENCY above 1 refuses the memory store: each worker would keep pets of its own.
  const database = await openFreshDatabase(inject('postgres'), { empty: true })
  try {
    const svc = await startTestService({
      mode: 'child',
      env: { DATABASE_URL: database.url, API_KEYS: CLUSTER_KEY, WEB_CONCURRENCY: '2', ...env },
      listening: 2,
      timeoutMs: 20_000,
    })
    return {
      svc,
      close: async () => {
        await svc.stop('SIGKILL')
        await database.close()
      },
    }
  } catch (error) {
    await database.close()
    throw error
  }
}
