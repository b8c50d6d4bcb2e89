import { IncomingMessage } from 'node:http'

/**
 * Whether a request carries the header `name` (lower case) on more than one line. node keeps the first
 * line of a header that is not a list (Host, Authorization, Content-Type) and drops the rest, so only
 * its raw lines tell (RFC 9110 5.3: such a header comes once). A length check per line, then a compare:
 * tens of nanoseconds for the usual dozen headers. A request made without node's parser may have none.
 */
export const sentMoreThanOnce = (req: IncomingMessage, name: string): boolean => {
  const raw = req.rawHeaders ?? []
  let seen = 0
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name && ++seen > 1) return true
  return false
}

const isAlphaNumeric = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)
const isHex = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)
// unreserved and sub-delims of RFC 3986 besides letters and digits: - . _ ~ ! $ & ' ( ) * + , ; =
const OTHERS = new Set([
  0x2d, 0x2e, 0x5f, 0x7e, 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x3b, 0x3d,
])
const isNameCode = (code: number) => isAlphaNumeric(code) || OTHERS.has(code)

/**
 * Whether a Host field value is `uri-host [ ":" port ]` (RFC 9112 3.2, RFC 3986 3.2.2): a name of
 * letters, digits, `-._~!$&'()*+,;=` and `%HH`, or `[…]` of an IPv6 (or future) address; then digits
 * after a colon. Empty is valid (a target without authority). One pass, no regex.
 */
export const isHostValue = (value: string): boolean => {
  const length = value.length
  let i = 0
  if (value.charCodeAt(0) === 0x5b) {
    i = 1
    while (i < length && (isNameCode(value.charCodeAt(i)) || value.charCodeAt(i) === 0x3a)) i++
    if (i === 1 || value.charCodeAt(i) !== 0x5d) return false
    i++
  } else
    while (i < length && value.charCodeAt(i) !== 0x3a) {
      const code = value.charCodeAt(i)
      if (code === 0x25) {
        if (!isHex(value.charCodeAt(i + 1)) || !isHex(value.charCodeAt(i + 2))) return false
        i += 3
      } else if (isNameCode(code)) i++
      else return false
    }
  if (i === length) return true
  if (value.charCodeAt(i) !== 0x3a) return false
  for (i++; i < length; i++) if (value.charCodeAt(i) < 0x30 || value.charCodeAt(i) > 0x39) return false
  return true
}

/**
 * Whether a request asks to switch protocols as node's parser (llhttp) reads it: `upgrade` in `Connection`,
 * and an `Upgrade` that is not empty. Any mention of the word counts, so that no form llhttp takes is missed
 * (one more closed connection costs little). One pass, no regular expression.
 */
export const asksToUpgrade = (req: IncomingMessage): boolean => {
  const { upgrade, connection } = req.headers
  return (
    upgrade !== undefined &&
    upgrade !== '' &&
    connection !== undefined &&
    connection.toLowerCase().includes('upgrade')
  )
}

/**
 * Whether node's HTTP/1 parser handed over a request line of a version other than 1.x: llhttp lets HTTP/0.9
 * and HTTP/2.0 through (and refuses 1.2 or 3.0). One made in process has no version, and node:http2's requests
 * (a host may serve the app with its compatibility API) are no IncomingMessage: neither is one.
 */
export const speaksOtherVersion = (req: IncomingMessage): boolean =>
  req.httpVersionMajor !== 1 &&
  (req.httpVersionMajor as number | null) !== null &&
  req instanceof IncomingMessage
