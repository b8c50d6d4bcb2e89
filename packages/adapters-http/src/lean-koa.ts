import Koa from 'koa'
import type { Context } from 'koa'

type Middleware = (ctx: Context) => Promise<void>
type HandleRequest = (this: Koa, ctx: Context, middleware: Middleware) => Promise<void>

// Koa's own, for the answers it writes in any other way than `res.end(body)`.
const koaHandleRequest = (Koa.prototype as unknown as { handleRequest: HandleRequest }).handleRequest
// Statuses whose answer has no body (Koa's `statuses.empty`).
const EMPTY = new Set([204, 205, 304])

// What Koa's respond does with these, it does with `res.end(body)` and nothing else.
const endsWithBody = (ctx: Context): boolean =>
  ctx.respond !== false &&
  ctx.method !== 'HEAD' &&
  (typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body)) &&
  !EMPTY.has(ctx.status) &&
  ctx.writable

/**
 * A Koa app that answers a string or Buffer body with `res.end(body)` itself, skipping the `on-finished`
 * watch Koa puts on every response; any other answer goes through Koa's own handling (a test compares).
 * Overrides Koa's private `handleRequest` (guard: test/private-api-guards.test.ts); why: ARCHITECTURE.md,
 * 'Made by hand, on purpose', row "lean-koa".
 */
export class LeanKoa<State = Koa.DefaultState> extends Koa<State> {
  handleRequest(ctx: Context, middleware: Middleware): Promise<void> {
    const res = ctx.res
    res.statusCode = 404
    return middleware(ctx)
      .then(() => {
        if (endsWithBody(ctx)) res.end(ctx.body)
        else {
          // Koa starts at 404 again: the middleware's status comes back as its first step.
          const status = res.statusCode
          return koaHandleRequest.call(this as Koa, ctx, async () => void (res.statusCode = status))
        }
      })
      .catch((error: unknown) => ctx.onerror(error as Error))
  }
}
