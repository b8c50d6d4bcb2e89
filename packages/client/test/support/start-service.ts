import { createService, loadConfig, startServer } from '@pets/api'
import { aClock } from '@pets/domain/testing'
import * as E from 'fp-ts/lib/Either.js'

/** The API key the service accepts. */
export const API_KEY = 'client-test-key'

/** The real service (@pets/api), listening in this process. */
export type Service = {
  /** Where this client reaches the API, such as http://127.0.0.1:40123/v1. */
  readonly baseUrl: string
  readonly stop: () => Promise<unknown>
}

/** The real service (@pets/api) in this process, on the in-memory adapters and a free port. */
export const startService = async (
  options: { readonly env?: Readonly<Record<string, string>>; readonly clockNow?: string } = {},
): Promise<Service> => {
  const config = loadConfig({
    API_KEYS: API_KEY,
    PORT: '0',
    LOG_LEVEL: 'silent',
    STORAGE: 'memory',
    ...options.env,
  })
  if (E.isLeft(config)) throw new Error(`bad test configuration: ${config.left.join('; ')}`)
  const clock = aClock(options.clockNow ?? '2026-11-22T12:00:00Z')
  const running = await startServer(config.right, (resolved) => createService(resolved, { clock }))
  return { baseUrl: `${running.url}/v1`, stop: running.stop }
}
