import { describe, expect, expectTypeOf, it } from 'vitest'
import { loadConfig, type ConfigContext } from '../src/index.js'

// What the package's functions take is its export too: a host can write the type down.
describe('the public types', () => {
  it("names loadConfig's second argument, ConfigContext", () => {
    expectTypeOf(loadConfig).parameter(1).toEqualTypeOf<ConfigContext | undefined>()
    const context: ConfigContext = { stdoutIsTty: false, describeOnly: true }
    expect(loadConfig({}, context)._tag).toBe('Right')
  })
})
