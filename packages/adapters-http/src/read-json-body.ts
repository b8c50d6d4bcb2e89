import * as E from 'fp-ts/lib/Either.js'
import type { Context } from 'koa'
import getRawBody from 'raw-body'
import type { MalformedRequest, PayloadTooLarge, UnsupportedMediaType } from './problems.js'

/** CONTRACT: a request body may be at most 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024

type BodyProblem = UnsupportedMediaType | PayloadTooLarge | MalformedRequest

const unsupported = (reason: string): E.Either<BodyProblem, never> =>
  E.left({ _tag: 'UnsupportedMediaType', reason })
const malformed = (reason: string): E.Either<BodyProblem, never> =>
  E.left({ _tag: 'MalformedRequest', reason })
const tooLarge: E.Either<BodyProblem, never> = E.left({ _tag: 'PayloadTooLarge', limit: MAX_BODY_BYTES })

// application/json, with parameters; a charset, if given, must be UTF-8 (RFC 8259).
const checkMediaType = (contentType: string | undefined, encoding: string | undefined) => {
  const expected = 'The request body must be JSON, sent with "Content-Type: application/json".'
  if (contentType === undefined) return unsupported(expected)
  const [type, ...parameters] = contentType.split(';').map((part) => part.trim())
  if (type?.toLowerCase() !== 'application/json') return unsupported(expected)
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=').map((s) => s.trim())
    if (name?.toLowerCase() === 'charset' && value.replace(/^"(.*)"$/, '$1').toLowerCase() !== 'utf-8')
      return unsupported('The request body must be encoded as UTF-8.')
  }
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    return unsupported(`Content-Encoding "${encoding}" is not supported; send the body uncompressed.`)
  return E.right(undefined)
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Reads and parses a JSON request body, checking in the contract's order: media type (415), size
 * (413), then the JSON itself (400). A declared length over the limit is refused unread.
 */
export const readJsonBody = async (ctx: Context): Promise<E.Either<BodyProblem, unknown>> => {
  const mediaType = checkMediaType(
    ctx.get('Content-Type') || undefined,
    ctx.get('Content-Encoding') || undefined,
  )
  if (E.isLeft(mediaType)) return mediaType
  const declared = ctx.request.length
  if (declared !== undefined && declared > MAX_BODY_BYTES) return tooLarge
  let raw: Buffer
  try {
    raw = await getRawBody(ctx.req, {
      limit: MAX_BODY_BYTES,
      ...(declared === undefined ? {} : { length: declared }),
    })
  } catch (error) {
    const type = (error as { type?: string }).type
    if (type === 'entity.too.large') return tooLarge
    if (type === 'request.aborted' || type === 'request.size.invalid')
      return malformed('The request body ended before its declared length.')
    throw error
  }
  if (raw.length === 0) return malformed('The request body is empty; it must be a JSON object.')
  let text: string
  try {
    text = utf8.decode(raw)
  } catch {
    return malformed('The request body is not valid UTF-8.')
  }
  try {
    // JSON.parse makes `__proto__` an own property, never a prototype; unknown keys are then refused.
    return E.right(JSON.parse(text) as unknown)
  } catch {
    // V8's message quotes the input, which may hold anything: say no more than where it is wrong.
    return malformed('The request body is not valid JSON.')
  }
}
