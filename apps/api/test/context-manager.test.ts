import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { StackContextManager } from '@opentelemetry/sdk-trace'

const KEY = createContextKey('test')
const named = (name: string) => ROOT_CONTEXT.setValue(KEY, name)
const nameOf = (manager: StackContextManager) => manager.active().getValue(KEY)

// The service keeps the active context with the SDK's StackContextManager (start-tracing.ts): what it relies
// on, held here so that an upgrade that changes it fails by name.
describe("the SDK's StackContextManager, as the service uses it", () => {
  it('makes a context active for the synchronous part of `with` only, nested or thrown out of', async () => {
    const manager = new StackContextManager()
    const seen: Array<unknown> = []
    const later = manager.with(named('outer'), async () => {
      seen.push(nameOf(manager))
      manager.with(named('inner'), () => seen.push(nameOf(manager)))
      seen.push(nameOf(manager))
      expect(() =>
        manager.with(named('thrown'), () => {
          throw new Error('out')
        }),
      ).toThrow('out')
      seen.push(nameOf(manager))
      await Promise.resolve()
      // After an await, nothing is carried: the request path enters its context again (withRequestSpan).
      seen.push(nameOf(manager))
    })
    seen.push(nameOf(manager))
    await later
    expect(seen).toEqual(['outer', 'inner', 'outer', 'outer', undefined, undefined])
  })

  it('binds a function to a context, with its own `this` and arguments', () => {
    const manager = new StackContextManager()
    const bound = manager.bind(named('bound'), function (this: { n: number }, add: number) {
      return [nameOf(manager), this.n + add]
    })
    expect(bound.call({ n: 1 }, 2)).toEqual(['bound', 3])
    expect(nameOf(manager)).toBeUndefined()
  })
})
