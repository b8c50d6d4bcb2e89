import type { Context } from 'koa'
import { sendProblem } from './respond.js'

/** The longest request target (path and query) the API reads; its longest useful URL is under 100 bytes. */
export const MAX_URL_BYTES = 4096

/** Past MAX_URL_BYTES, answers 400 (CONTRACT has no 414) and returns false: the request goes no further. */
export const admitUrlLength = (ctx: Context): boolean => {
  const bytes = Buffer.byteLength(ctx.originalUrl)
  if (bytes <= MAX_URL_BYTES) return true
  sendProblem(ctx, {
    _tag: 'MalformedRequest',
    reason: `The URL must be at most ${MAX_URL_BYTES} bytes long (it has ${bytes}).`,
  })
  return false
}
