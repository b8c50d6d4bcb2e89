import { shownFieldName, type Issue } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type { Context } from 'koa'
import { continueToBody } from '../connection/continue-on-read.js'
import { prototypeKeyIn } from './prototype-keys.js'
import { sentMoreThanOnce } from '../header-lines.js'
import { MAX_JSON_DEPTH, outlineJson } from './json-depth.js'
import { MAX_MEMBERS, repeatedMember } from './repeated-member.js'
import { readBodyBytes } from './read-body-bytes.js'
import type { MalformedRequest, NotImplemented, PayloadTooLarge, UnsupportedMediaType } from '../problems.js'

/** CONTRACT: a request body may be at most 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024
/** How long a request body may take to arrive, from when the handler starts reading it. */
export const BODY_TIMEOUT_MS = 10_000

export type ReadJsonBodyOptions = { readonly timeoutMs?: number }

/**
 * A JSON body refused though it was read: a member name given twice (`repeated`: JSON.parse kept the last) or
 * a key that reaches a prototype. Its `body` is there only to name its other offending members (CONTRACT: a
 * 400 names every one); no part of it may be decoded as it is.
 */
export type RefusedJsonBody = {
  readonly _tag: 'RefusedJsonBody'
  readonly issue: Issue
  readonly repeated?: string
  readonly body: JsonBody
}

type BodyProblem =
  NotImplemented | UnsupportedMediaType | PayloadTooLarge | MalformedRequest | RefusedJsonBody

/**
 * A parsed body, with its text: what JSON.parse cannot tell (a number's digits) is read there; and where
 * each member name of its top-level object opens in it, a name given twice found twice (outlineJson).
 */
export type JsonBody = {
  readonly value: unknown
  readonly text: string
  readonly names: ReadonlyArray<number>
}

const unsupported = (reason: string): E.Either<BodyProblem, never> =>
  E.left({ _tag: 'UnsupportedMediaType', reason })
const malformed = (reason: string): E.Either<BodyProblem, never> =>
  E.left({ _tag: 'MalformedRequest', reason })
const tooLarge: E.Either<BodyProblem, never> = E.left({ _tag: 'PayloadTooLarge', limit: MAX_BODY_BYTES })

const ACCEPTED: E.Either<BodyProblem, undefined> = E.right(undefined)

const unsupportedCoding = (encoding: string): E.Either<BodyProblem, never> =>
  E.left({
    _tag: 'UnsupportedMediaType',
    reason: `Content-Encoding "${encoding}" is not supported; send the body uncompressed.`,
    coding: true,
  })

// Whether a charset names UTF-8 by any of its labels (`utf8`, as many clients send it): the WHATWG Encoding
// Standard's table, as TextDecoder reads it, not a copy of it. TextDecoder would trim white space inside quotes;
// such a label is refused, as before.
const namesUtf8 = (label: string): boolean => {
  if (label === '' || label !== label.trim()) return false
  try {
    return new TextDecoder(label).encoding === 'utf-8'
  } catch {
    return false
  }
}

// application/json, with parameters; a charset, if given, must name UTF-8 (RFC 8259).
const checkMediaType = (contentType: string | undefined, encoding: string | undefined) => {
  // What nearly every client sends, known without taking it apart.
  if (
    encoding === undefined &&
    (contentType === 'application/json' || contentType === 'application/json; charset=utf-8')
  )
    return ACCEPTED
  const expected = 'The request body must be JSON, sent with "Content-Type: application/json".'
  if (contentType === undefined) return unsupported(expected)
  const [type, ...parameters] = contentType.split(';').map((part) => part.trim())
  if (type?.toLowerCase() !== 'application/json') return unsupported(expected)
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=').map((s) => s.trim())
    if (name?.toLowerCase() === 'charset' && !namesUtf8(value.replace(/^"(.*)"$/, '$1')))
      return unsupported('The request body must be encoded as UTF-8.')
  }
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return unsupportedCoding(encoding)
  return ACCEPTED
}

// node's parser takes the chunks of `Transfer-Encoding: gzip, chunked` and leaves the gzip to us: a coding
// other than chunked alone is one the service does not implement (RFC 9112, 6.1: 501), not a JSON body.
const checkTransferCoding = (coding: string | undefined): E.Either<BodyProblem, undefined> =>
  coding === undefined || coding === 'chunked' || coding.trim().toLowerCase() === 'chunked'
    ? ACCEPTED
    : E.left({
        _tag: 'NotImplemented',
        reason: `Transfer-Encoding "${coding}" is not supported; send the body with Content-Length, or chunked alone.`,
      })

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Reads and parses a JSON request body in the contract's order: transfer coding (501), media type (415),
 * size (413), JSON (400). A slow body gets 400 and a closed connection; so does a value nested deeper than
 * MAX_JSON_DEPTH, before it is parsed; prototype keys are refused at any depth, and a member name given twice
 * (RefusedJsonBody, with the body, so that its other members can be named).
 */
export const readJsonBody = async (
  ctx: Context,
  { timeoutMs = BODY_TIMEOUT_MS }: ReadJsonBodyOptions = {},
): Promise<E.Either<BodyProblem, JsonBody>> => {
  const { headers } = ctx.req
  const transfer = checkTransferCoding(headers['transfer-encoding'])
  if (E.isLeft(transfer)) return transfer
  // node kept the first of several Content-Type lines; which one the client meant, nobody knows.
  if (headers['content-type'] !== undefined && sentMoreThanOnce(ctx.req, 'content-type'))
    return unsupported('Send one Content-Type header: a request with several is refused.')
  const mediaType = checkMediaType(
    headers['content-type'] || undefined,
    headers['content-encoding'] || undefined,
  )
  if (E.isLeft(mediaType)) return mediaType
  // node's parser refuses a Content-Length that is not digits, so this is a number or none.
  const length = ctx.req.headers['content-length']
  const declared = length === undefined || length === '' ? undefined : Number(length)
  if (declared !== undefined && declared > MAX_BODY_BYTES) return tooLarge
  const alreadyRead = bodyReadByHost(ctx)
  if (alreadyRead !== undefined)
    return Buffer.byteLength(alreadyRead) > MAX_BODY_BYTES ? tooLarge : parseJson(alreadyRead)
  // A client that waits for 100 Continue sends its body now, not before its key and head were checked.
  continueToBody(ctx.req, ctx.res)
  const raw = await readBodyBytes(ctx.req, declared, MAX_BODY_BYTES, timeoutMs)
  if (raw === 'too-large') {
    // However much of it has arrived: a client that sends more than the limit is one to stop (a 413 closes).
    ctx.set('Connection', 'close')
    return tooLarge
  }
  if (raw === 'incomplete') return malformed('The request body ended before its declared length.')
  if (raw === 'timeout') {
    ctx.set('Connection', 'close')
    return malformed(`The request body did not arrive within ${timeoutMs / 1000} s.`)
  }
  let text: string
  try {
    text = utf8.decode(raw)
  } catch {
    return malformed('The request body is not valid UTF-8.')
  }
  return parseJson(text)
}

// A host app that mounts the pets router may run a body parser of its own first (koa-bodyparser,
// @koa/bodyparser): the stream is then spent, and its text (rawBody) or parsed value is all there is.
const bodyReadByHost = (ctx: Context): string | undefined => {
  if (!ctx.req.readableEnded) return undefined
  const request = ctx.request as { rawBody?: unknown; body?: unknown }
  if (typeof request.rawBody === 'string') return request.rawBody
  return request.body === undefined ? '' : JSON.stringify(request.body)
}

const parseJson = (text: string): E.Either<BodyProblem, JsonBody> => {
  if (text.length === 0) return malformed('The request body is empty; it must be a JSON object.')
  const { tooDeep, names } = outlineJson(text, MAX_JSON_DEPTH)
  if (tooDeep)
    return malformed(`The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep.`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // V8's message quotes the input, which may hold anything: say no more than where it is wrong.
    return malformed('The request body is not valid JSON.')
  }
  const body = { value: parsed, text, names }
  const forbidden = prototypeKeyIn(text, parsed)
  if (forbidden !== undefined)
    return E.left({
      _tag: 'RefusedJsonBody',
      issue: { field: '', problem: `must not contain the key "${forbidden}", at any depth` },
      body,
    })
  // The first MAX_MEMBERS names go into the set: the 5,000 of a crowded body cost 0.8 times its JSON.parse.
  const repeated = names.length > 1 ? repeatedMember(text, names, MAX_MEMBERS) : undefined
  return repeated === undefined
    ? E.right(body)
    : E.left({
        _tag: 'RefusedJsonBody',
        issue: { field: shownFieldName(repeated), problem: 'is given more than once' },
        repeated,
        body,
      })
}
