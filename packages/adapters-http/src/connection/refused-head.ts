import { METHODS } from 'node:http'

/** The head of a request whose method node's parser does not know, read as node would have read it. */
export type RefusedHead = {
  /** The method as sent: a token of RFC 9110 that node's parser does not know (`FOO`). */
  readonly method: string
  readonly target: string
  readonly httpVersionMinor: 0 | 1
  readonly headers: Record<string, string>
  readonly rawHeaders: ReadonlyArray<string>
}

/** node's default `maxHeaderSize`: a head that has not ended within it would be refused as too large. */
export const MAX_HEAD_BYTES = 16 * 1024

// tchar of RFC 9110 5.6.2: letters, digits and !#$%&'*+-.^_`|~
const TCHAR = new Uint8Array(128)
for (const code of Buffer.from(
  "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
))
  TCHAR[code] = 1
/** Whether a byte (or char code) is a tchar of RFC 9110 5.6.2, one a method or a field name is made of. */
export const isTokenByte = (code: number): boolean => TCHAR[code] === 1
const isToken = (text: string): boolean => {
  if (text === '') return false
  for (let i = 0; i < text.length; i++) if (!isTokenByte(text.charCodeAt(i))) return false
  return true
}
// A field value of RFC 9110 5.5: visible characters, obs-text, spaces and tabs; no CR, LF or NUL.
const isFieldValue = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 ? code !== 0x09 : code === 0x7f) return false
  }
  return true
}
const isTarget = (text: string): boolean => {
  if (text === '') return false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code <= 0x20 || code >= 0x7f) return false
  }
  return true
}
const isWhite = (code: number) => code === 0x20 || code === 0x09
const trimWhite = (text: string): string => {
  let start = 0
  let end = text.length
  while (start < end && isWhite(text.charCodeAt(start))) start++
  while (end > start && isWhite(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

// As node's IncomingMessage joins a header sent on several lines: these keep their first line,
// `cookie` joins with `; `, every other with `, ` (set-cookie is a response's, never a request's).
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
])

/**
 * Reads the head (request line and header lines) at the start of `raw`, the bytes node's parser refused
 * for their method (`HPE_INVALID_METHOD`: llhttp knows a fixed list of methods, RFC 9110 allows any
 * token). Undefined unless the head is whole within `maxBytes` and well formed by RFC 9112: a token, a target
 * of visible ASCII, HTTP/1.0 or 1.1, `name: value` lines without folding. One pass over each line, no
 * regular expression: the input is a stranger's.
 */
export const readRefusedHead = (raw: Buffer, maxBytes = MAX_HEAD_BYTES): RefusedHead | undefined => {
  const end = raw.subarray(0, maxBytes).indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n')
  const requestLine = lines[0]!.split(' ')
  if (requestLine.length !== 3) return undefined
  const [method = '', target = '', version] = requestLine
  if (!isToken(method) || !isTarget(target)) return undefined
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') return undefined
  // Without a prototype, as node's own: a header named `__proto__` is a header like any other.
  const headers: Record<string, string> = Object.create(null)
  const rawHeaders: Array<string> = []
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    const name = line.slice(0, colon)
    if (colon < 0 || !isToken(name)) return undefined
    const value = trimWhite(line.slice(colon + 1))
    if (!isFieldValue(value)) return undefined
    rawHeaders.push(name, value)
    const key = name.toLowerCase()
    const before = headers[key]
    if (before === undefined) headers[key] = value
    else if (!FIRST_ONLY.has(key)) headers[key] = `${before}${key === 'cookie' ? '; ' : ', '}${value}`
  }
  return { method, target, httpVersionMinor: version === 'HTTP/1.1' ? 1 : 0, headers, rawHeaders }
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39

/**
 * `raw` from its first byte that is neither CR nor LF: the empty lines a request line may follow (RFC 9112
 * section 2.2; node's parser skips them), which are no first line of the request's own.
 */
const withoutEmptyLines = (raw: Buffer): Buffer => {
  let start = 0
  while (start < raw.length && (raw[start] === 0x0d || raw[start] === 0x0a)) start++
  return start === 0 ? raw : raw.subarray(start)
}

/** The last of three words of the line `raw` begins with, its version if it is a request line; one pass. */
export const requestLineVersion = (bytes: Buffer): string | undefined => {
  const raw = withoutEmptyLines(bytes)
  const end = raw.subarray(0, MAX_HEAD_BYTES).indexOf('\r\n')
  if (end < 0) return undefined
  const words = raw.subarray(0, end).toString('latin1').split(' ', 4)
  return words.length === 3 ? words[2] : undefined
}

/** Whether `version` names an HTTP version (HTTP/, a digit, a dot, a digit) other than 1.1 and 1.0. */
export const isOtherVersion = (version: string | undefined): boolean =>
  version !== undefined &&
  version.length === 8 &&
  version.startsWith('HTTP/') &&
  isDigit(version.charCodeAt(5)) &&
  version[6] === '.' &&
  isDigit(version.charCodeAt(7)) &&
  version !== 'HTTP/1.1' &&
  version !== 'HTTP/1.0'

const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS)
const MAX_TARGET = 4096

/**
 * The method and target of refused bytes' first line (after empty lines), as far as they read as such: a method
 * node knows (else `_OTHER`, so that metrics keep their few labels) and a path of visible ASCII (else `/`).
 * One pass.
 */
export const requestLineOf = (raw: unknown): { readonly method: string; readonly target: string } => {
  if (!Buffer.isBuffer(raw)) return { method: '_OTHER', target: '/' }
  const firstLine = withoutEmptyLines(raw)
    .subarray(0, Math.min(raw.length, MAX_TARGET + 64))
    .toString('latin1')
    .split('\r\n', 1)[0]!
  const [method = '', target = ''] = firstLine.split(' ', 2)
  let visible = target.startsWith('/') && target.length <= MAX_TARGET
  for (let i = 0; visible && i < target.length; i++) {
    const code = target.charCodeAt(i)
    visible = code > 0x20 && code < 0x7f
  }
  return { method: KNOWN_METHODS.has(method) ? method : '_OTHER', target: visible ? target : '/' }
}
