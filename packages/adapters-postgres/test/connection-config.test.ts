import { userInfo } from 'node:os'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { connectionConfig } from '../src/runner/connection-config.js'

const userOf = (url: string) =>
  (connectionConfig(url, undefined, 'DATABASE_URL').settings as { readonly user?: string }).user

describe('a URI without a user, read as libpq reads it', () => {
  afterEach(() => vi.unstubAllEnvs())

  it("connects as the operating system's user when neither PGUSER nor USER says (a container leaves USER unset)", () => {
    vi.stubEnv('PGUSER', undefined)
    vi.stubEnv('USER', undefined)
    expect(userOf('postgres://127.0.0.1:5432/animals')).toBe(userInfo().username)
  })

  it("leaves pg's own default, PGUSER then USER, and the URI's user, as they are", () => {
    vi.stubEnv('PGUSER', undefined)
    vi.stubEnv('USER', 'someone')
    expect(userOf('postgres://127.0.0.1:5432/animals')).toBeUndefined()
    vi.stubEnv('PGUSER', 'operator')
    expect(userOf('postgres://127.0.0.1:5432/animals')).toBeUndefined()
    expect(userOf('postgres://app@127.0.0.1:5432/animals')).toBe('app')
  })
})
