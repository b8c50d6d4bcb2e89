// What a request's target says, as the log line and the span show it: its path and query, cut to a length.

/** The most characters of a target's part (a path, a query, a method) a log line or a span keeps. */
const LONGEST_TEXT = 256

/** `text`, or its first 256 characters and `…`. */
export const shortened = (text: string): string =>
  text.length <= LONGEST_TEXT ? text : `${text.slice(0, LONGEST_TEXT)}…`

/**
 * The path and query of a request target (RFC 9112, 3.2): an absolute-form one (`http://user:pw@host/p?q`,
 * which node takes as it came) without its scheme and authority, credentials included; the authority-form
 * one of a CONNECT (`host:443`) as its host and port, without the credentials node lets through
 * (`user:pw@host:443`); a fragment, which no target should carry but node lets through, left out. The usual
 * origin-form costs one comparison.
 */
export const targetOf = (url: string): { readonly path: string; readonly query: string | undefined } => {
  let start = 0
  if (url[0] !== '/' && url[0] !== '*') {
    const scheme = url.indexOf('://')
    if (scheme !== -1) {
      const slash = url.slice(scheme + 3).search(/[/?#]/)
      start = slash === -1 ? url.length : scheme + 3 + slash
    } else start = url.lastIndexOf('@') + 1
  }
  const fragment = url.indexOf('#', start)
  const end = fragment === -1 ? url.length : fragment
  const query = url.indexOf('?', start)
  return query === -1 || query > end
    ? { path: url.slice(start, end), query: undefined }
    : { path: url.slice(start, query), query: url.slice(query + 1, end) }
}

// RFC 3986: unreserved and sub-delims, what a host (reg-name) is made of, with pct-encoded; userinfo adds `:`.
const HOST_BYTE = new Uint8Array(128)
for (const code of Buffer.from(
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=",
))
  HOST_BYTE[code] = 1
const isHex = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)
const isDigits = (text: string) => {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) < 0x30 || text.charCodeAt(i) > 0x39) return false
  return true
}
// Whether `text` is made of `allowed` bytes and pct-encoded ones alone (`extra` allowed too); one pass.
const isMadeOf = (text: string, extra: number) => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x25) {
      if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) return false
      i += 2
    } else if (code >= 128 || (HOST_BYTE[code] !== 1 && code !== extra)) return false
  }
  return true
}
// An IP literal's inside, as far as it matters here: hex digits, `:` and `.` (and IPvFuture's `v`).
const isIpLiteral = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (!isHex(code) && code !== 0x3a && code !== 0x2e && code !== 0x76) return false
  }
  return text !== ''
}
/** Whether `authority` is `[userinfo@]host[:port]` by RFC 3986 (a reg-name or an IP literal, a port of digits). */
const isAuthority = (authority: string): boolean => {
  const at = authority.lastIndexOf('@')
  if (at >= 0 && !isMadeOf(authority.slice(0, at), 0x3a)) return false
  const hostPort = authority.slice(at + 1)
  const close = hostPort.startsWith('[') ? hostPort.indexOf(']') : -1
  if (hostPort.startsWith('[') && (close < 0 || !isIpLiteral(hostPort.slice(1, close)))) return false
  const colon = hostPort.indexOf(':', close + 1)
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon)
  return (close >= 0 || isMadeOf(host, -1)) && (colon < 0 || isDigits(hostPort.slice(colon + 1)))
}
const isSchemeByte = (code: number, first: boolean) =>
  ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) ||
  (!first && ((code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2d || code === 0x2e))

type RoutedTarget = { readonly path: string | null; readonly query: string } | undefined

// The target read last and what it says: a request's is read two or three times (its route, its handler's
// query, its line), from the same url, one after another.
let lastUrl: string | undefined
let lastRouted: RoutedTarget

/**
 * The path and query a target routes by: a path's (`/...`, `//...` as it is), up to its query or fragment; an
 * absolute-form one's (`http://host/p?q`, `/` for an empty path) when its scheme and authority are well formed
 * (RFC 3986), undefined when they are not (no URL); `*` as itself; null for any other (a CONNECT's `host:443`,
 * `mailto:x`), which has no path to route. node's url.parse, under Koa's `ctx.path`, read `http://a:b/x` as the
 * path `/:b/x` and printed a DEP0170 warning on standard error; `//u@a:b/x#f` too. One pass, once for the same
 * url read again at once.
 */
export const routedTarget = (url: string): RoutedTarget => {
  if (url !== lastUrl) {
    lastRouted = readTarget(url)
    lastUrl = url
  }
  return lastRouted
}

const readTarget = (url: string): RoutedTarget => {
  if (url === '*') return { path: '*', query: '' }
  if (url.startsWith('/')) {
    const { path, query } = targetOf(url)
    return { path, query: query ?? '' }
  }
  // The scheme ends at the first `:`; a `//` after it begins the authority.
  const scheme = url.indexOf(':')
  if (scheme <= 0 || !url.startsWith('//', scheme + 1)) return { path: null, query: '' }
  for (let i = 0; i < scheme; i++) if (!isSchemeByte(url.charCodeAt(i), i === 0)) return undefined
  const rest = url.slice(scheme + 3)
  const slash = rest.search(/[/?#]/)
  if (!isAuthority(slash < 0 ? rest : rest.slice(0, slash))) return undefined
  const { path, query } = targetOf(url)
  return { path: path === '' ? '/' : path, query: query ?? '' }
}
