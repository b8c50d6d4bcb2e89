import type { IncomingMessage } from 'node:http'

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
