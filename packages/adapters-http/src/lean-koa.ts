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
 * A Koa application that answers a string or Buffer body itself, as Koa does (`res.end(body)`),
 * without the `on-finished` watch Koa puts on every response first: 8 closures and 6 listeners a
 * request, there to hand errors of the response to `ctx.onerror`, which for such a body has
 * nothing to do (about 10 % of the CPU of a list in memory, bench/RESULTS.md). Every other answer
 * (HEAD, no body, a stream, an object, `ctx.respond = false`) goes through Koa's own handling,
 * after the middleware: the same answers, as a test compares.
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
