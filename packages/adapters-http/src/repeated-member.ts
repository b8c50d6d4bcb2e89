import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, endOfString, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-text.js'

/**
 * The first member name that a valid JSON text's top-level object gives more than once, or undefined.
 * JSON.parse keeps the last value and drops the others without a word (RFC 8259, 4: the behaviour is
 * "unpredictable"), and a proxy or validator in front may have read the first. CONTRACT refuses unknown
 * fields rather than drop them; refusing a repeated one is the service's own extension of that rule. Every
 * body of the contract is one flat object, so only its own members are read. One linear pass, strings
 * skipped with indexOf; a name with escapes is read by JSON.parse over its own length.
 */
export const repeatedMember = (text: string): string | undefined => {
  const seen = new Set<string>()
  const length = text.length
  let depth = 0
  let expectingKey = false
  let i = 0
  while (i < length) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      const end = Math.min(endOfString(text, i) + 1, length)
      if (depth === 1 && expectingKey) {
        const raw = text.slice(i + 1, end - 1)
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw
        if (seen.has(name)) return name
        seen.add(name)
        expectingKey = false
      }
      i = end
    } else {
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        depth++
        expectingKey = depth === 1 && code === OPEN_OBJECT
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--
      else if (code === COMMA) expectingKey = depth === 1
      i++
    }
  }
  return undefined
}
