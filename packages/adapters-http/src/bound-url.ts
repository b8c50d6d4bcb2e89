import type { Context } from 'koa'
import { sendProblem } from './respond.js'

/** The longest request target (path and query) the API reads; its longest useful URL is under 100 bytes. */
export const MAX_URL_BYTES = 4096

/** What is wrong with a URL over MAX_URL_BYTES (CONTRACT has no 414: a 400 says it), or undefined. */
export const urlLengthProblem = (ctx: Context): string | undefined => {
  const bytes = Buffer.byteLength(ctx.originalUrl)
  return bytes <= MAX_URL_BYTES
    ? undefined
    : `The URL must be at most ${MAX_URL_BYTES} bytes long (it has ${bytes}).`
}

/** How many bytes a URL over MAX_URL_BYTES has, or undefined for one within it. */
export const urlBytesOverLimit = (ctx: Context): number | undefined => {
  const bytes = Buffer.byteLength(ctx.originalUrl)
  return bytes > MAX_URL_BYTES ? bytes : undefined
}

/** What a 400 says of a URL of `bytes` bytes, over MAX_URL_BYTES. */
export const urlTooLong = (bytes: number) => `must be at most ${MAX_URL_BYTES} bytes long (it has ${bytes})`

/** Past MAX_URL_BYTES, answers 400 (CONTRACT has no 414) and returns false: the request goes no further. */
export const admitUrlLength = (ctx: Context): boolean => {
  const bytes = urlBytesOverLimit(ctx)
  if (bytes === undefined) return true
  sendProblem(ctx, { _tag: 'MalformedRequest', reason: `The URL ${urlTooLong(bytes)}.` })
  return false
}
