import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import type { TestService, TestServiceOptions } from '../support/test-service.js'

/** How one storage's run of the suite starts a fresh service; a fresh service holds no pets. */
export type StartService = (options?: TestServiceOptions) => Promise<TestService>

/** The PUBLIC_BASE_URL of every service the suite starts, unless a test sets another. */
export const PUBLIC_BASE_URL = 'https://api.example.com/v1'

export type UseServiceOptions = TestServiceOptions & {
  /** A fresh service for each test instead of one for the whole describe block. */
  readonly each?: boolean
}

/**
 * Starts a service before the tests of the enclosing describe block (or before each of them) and
 * closes it afterwards. Returns a getter, since the service exists only once the hook has run.
 */
export const useService = (start: StartService, { each = false, ...options }: UseServiceOptions = {}) => {
  let svc: TestService | undefined
  const open = async () => {
    svc = await start({ ...options, env: { PUBLIC_BASE_URL, ...options.env } })
  }
  const close = async () => {
    await svc?.close()
    svc = undefined
  }
  if (each) {
    beforeEach(open)
    afterEach(close)
  } else {
    beforeAll(open)
    afterAll(close)
  }
  return (): TestService => {
    if (svc === undefined) throw new Error('the service is not running: call it inside a test or hook')
    return svc
  }
}
