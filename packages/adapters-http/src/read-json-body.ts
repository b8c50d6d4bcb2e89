import * as E from 'fp-ts/lib/Either.js'
import type { Context } from 'koa'
import type { IncomingMessage } from 'node:http'
import type { MalformedRequest, PayloadTooLarge, UnsupportedMediaType } from './problems.js'

/** CONTRACT: a request body may be at most 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024
/** How long a request body may take to arrive, from when the handler starts reading it. */
export const BODY_TIMEOUT_MS = 10_000

/** Options of readJsonBody. */
export type ReadJsonBodyOptions = { readonly timeoutMs?: number }

type BodyProblem = UnsupportedMediaType | PayloadTooLarge | MalformedRequest

/** A parsed body, with its text: what JSON.parse cannot tell (a number's digits) is read there. */
export type JsonBody = { readonly value: unknown; readonly text: string }

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

// Keys that name or reach a prototype. JSON.parse makes them plain own properties, but a later
// merge that assigns them (io-ts merges intersections so) would set a prototype instead. No field
// of the interface has these names, so refusing them outright costs nothing.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

// Walks the parsed value without recursion: a 64 KiB body may nest 30,000 levels deep.
const forbiddenKeyIn = (value: unknown): string | undefined => {
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next !== 'object' || next === null) continue
    if (Array.isArray(next)) for (const inner of next as Array<unknown>) pending.push(inner)
    else
      for (const [key, inner] of Object.entries(next)) {
        if (FORBIDDEN_KEYS.has(key)) return key
        pending.push(inner)
      }
  }
  return undefined
}

type Raw = Buffer | 'too-large' | 'incomplete' | 'timeout'

/**
 * Reads a request's body within `timeoutMs`, up to MAX_BODY_BYTES: one promise, one timer. A body
 * over the limit stops the reading at once. A body that ends short of its declared length, a
 * stream that fails or closes first (the client went away), or one that is already closed are
 * all `incomplete`: the client's doing, never a server error.
 */
const readRaw = (req: IncomingMessage, declared: number | undefined, timeoutMs: number): Promise<Raw> =>
  new Promise((resolve) => {
    if (req.destroyed || !req.readable) return resolve('incomplete')
    const chunks: Array<Buffer> = []
    let size = 0
    const finish = (raw: Raw) => {
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onEnded)
      req.off('close', onEnded)
      resolve(raw)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk)
      req.pause()
      finish('too-large')
    }
    const onEnd = () =>
      finish(declared !== undefined && size !== declared ? 'incomplete' : Buffer.concat(chunks, size))
    const onEnded = () => finish('incomplete')
    // No time limit would let a body sent a byte at a time hold the connection until the server's
    // requestTimeout. Past it the answer is 400 and the connection is closed, the rest never read.
    const timer = setTimeout(() => finish('timeout'), timeoutMs)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onEnded)
    req.on('close', onEnded)
  })

/**
 * Reads and parses a JSON request body, checking in the contract's order: media type (415), size
 * (413), then the JSON itself (400). A declared length over the limit is refused unread; a body
 * that takes longer than `timeoutMs` to arrive gets 400, and its connection is closed. Keys that
 * reach a prototype (`__proto__`, `constructor`, `prototype`) are refused at any depth.
 */
export const readJsonBody = async (
  ctx: Context,
  { timeoutMs = BODY_TIMEOUT_MS }: ReadJsonBodyOptions = {},
): Promise<E.Either<BodyProblem, JsonBody>> => {
  const mediaType = checkMediaType(
    ctx.get('Content-Type') || undefined,
    ctx.get('Content-Encoding') || undefined,
  )
  if (E.isLeft(mediaType)) return mediaType
  const declared = ctx.request.length
  if (declared !== undefined && declared > MAX_BODY_BYTES) return tooLarge
  const alreadyRead = bodyReadByHost(ctx)
  if (alreadyRead !== undefined)
    return Buffer.byteLength(alreadyRead) > MAX_BODY_BYTES ? tooLarge : parseJson(alreadyRead)
  const raw = await readRaw(ctx.req, declared, timeoutMs)
  if (raw === 'too-large') return tooLarge
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
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // V8's message quotes the input, which may hold anything: say no more than where it is wrong.
    return malformed('The request body is not valid JSON.')
  }
  const forbidden = forbiddenKeyIn(parsed)
  return forbidden === undefined
    ? E.right({ value: parsed, text })
    : malformed(`The request body must not contain the key "${forbidden}", at any depth.`)
}
