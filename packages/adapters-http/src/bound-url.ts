import type { Context } from 'koa'
import { sendProblem } from './respond.js'

/**
 * The longest request target (path and query) the API reads. Its longest useful URL is under 100
 * bytes; node:http bounds the request line and headers together (maxHeaderSize) beyond this.
 */
export const MAX_URL_BYTES = 4096

/**
 * Answers `400 validation_failed` when the request target is over MAX_URL_BYTES, and returns
 * false; the request must then go no further. CONTRACT has no 414 code, so it is a 400.
 */
export const admitUrlLength = (ctx: Context): boolean => {
  const bytes = Buffer.byteLength(ctx.originalUrl)
  if (bytes <= MAX_URL_BYTES) return true
  sendProblem(ctx, {
    _tag: 'MalformedRequest',
    reason: `The URL must be at most ${MAX_URL_BYTES} bytes long (it has ${bytes}).`,
  })
  return false
}
