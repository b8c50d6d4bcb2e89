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
