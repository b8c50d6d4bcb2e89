import type { Middleware } from 'koa'

/**
 * Headers every answer carries: `X-Content-Type-Options: nosniff`, and `Cache-Control: no-store`
 * unless a handler chose a cache policy. Set after the rest has run, so that they survive the
 * error mapper, which drops the headers of a failed answer.
 */
export const secureHeaders = (): Middleware => async (ctx, next) => {
  try {
    await next()
  } finally {
    ctx.set('X-Content-Type-Options', 'nosniff')
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store')
  }
}
