import zlib from 'node:zlib'

// As Node's fetch (undici): more codings than this fail the request.
const MAX_CODINGS = 5

const zlibFlush = { finishFlush: zlib.constants.Z_SYNC_FLUSH }
// A deflate body is zlib-wrapped (RFC 9110) or, from some servers, raw; the first byte tells them apart.
const inflate = (bytes: Buffer) =>
  bytes.length > 0 && ((bytes[0] ?? 0) & 0x0f) !== 0x08
    ? zlib.inflateRawSync(bytes, zlibFlush)
    : zlib.inflateSync(bytes, zlibFlush)
type Decode = (bytes: Buffer) => Buffer
const gunzip: Decode = (bytes) => zlib.gunzipSync(bytes, zlibFlush)
const DECODERS: ReadonlyMap<string, Decode> = new Map([
  ['gzip', gunzip],
  ['x-gzip', gunzip],
  ['deflate', inflate],
  ['br', (bytes) => zlib.brotliDecompressSync(bytes, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })],
])

const failing = (error: unknown) =>
  new ReadableStream<Uint8Array>({ start: (c) => c.error(new TypeError('terminated', { cause: error })) })

/**
 * The body of an answer as Node's fetch gives it: its `Content-Encoding` undone, last coding first,
 * unless one of its codings is unknown (the bytes are given as sent); bytes that do not decode make a
 * body whose read fails (TypeError `terminated`), and more than five codings throw as the fetch fails.
 */
export const decodeContent = (
  bytes: Buffer,
  contentEncoding: string | null,
): Buffer | ReadableStream<Uint8Array> => {
  if (contentEncoding === null) return bytes
  const codings = contentEncoding.toLowerCase().split(',')
  if (codings.length > MAX_CODINGS)
    throw new TypeError('fetch failed', {
      cause: new Error(`too many content-encodings in response: ${codings.length}, maximum allowed is 5`),
    })
  const decoders: Array<Decode> = []
  for (const coding of codings) {
    const decode = DECODERS.get(coding.trim())
    if (decode === undefined) return bytes
    decoders.push(decode)
  }
  try {
    return decoders.reduceRight((body, decode) => decode(body), bytes)
  } catch (error) {
    return failing(error)
  }
}
