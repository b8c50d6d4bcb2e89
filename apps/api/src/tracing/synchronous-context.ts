import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api'

/**
 * The active context for the synchronous part of `context.with` only, as the SDK's StackContextManager
 * (for browsers) keeps it: no async hook. On Node 20, AsyncLocalStorage makes every async resource of
 * every request pay a hook once it has been used (list 20 in memory at a 10 % sampler: 82 against 70 µs
 * of CPU per request; commit e6a1db8's message). Enough where every span is made or read where a port
 * is called: adapters-http enters the request's context there (withRequestSpan), and the PostgreSQL
 * adapter reads it when its port is called (storeCall), not when the statement runs.
 */
export class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT

  active(): Context {
    return this.current
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current
    this.current = context
    try {
      return fn.call(thisArg, ...args)
    } finally {
      this.current = previous
    }
  }

  // A bound function runs in the context it was bound to; an event emitter is left as it is.
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the bound function keeps its own `this`
    const manager = this
    return function (this: unknown, ...args: Array<unknown>) {
      return manager.with(context, target as (...a: Array<unknown>) => unknown, this, ...args)
    } as T
  }

  enable(): this {
    return this
  }

  disable(): this {
    this.current = ROOT_CONTEXT
    return this
  }
}
