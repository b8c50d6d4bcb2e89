// What the scanners of request bodies (json-depth.ts, integer-text.ts, repeated-member.ts) share: JSON's
// structural characters, the end of a string and the walk over a top-level object's members. Read with
// charCodeAt and indexOf, never a regular expression.

export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const OPEN_ARRAY = 0x5b
export const CLOSE_ARRAY = 0x5d
export const OPEN_OBJECT = 0x7b
export const CLOSE_OBJECT = 0x7d
export const COMMA = 0x2c
const COLON = 0x3a

/**
 * The index of the quote that closes the string opened at `open`, or the text's length when none does.
 * A quote is escaped when an odd number of backslashes stand before it; each backslash is counted for
 * the one quote that follows it, so the whole text is read at most twice.
 */
export const endOfString = (text: string, open: number): number => {
  let quote = text.indexOf('"', open + 1)
  while (quote !== -1) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
    quote = text.indexOf('"', quote + 1)
  }
  return text.length
}

// JSON's whitespace: space, tab, line feed, carriage return.
const isBlank = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

/**
 * Calls `visit` with the name of each member of a valid JSON text's top-level object, in order, and the
 * index where its value starts; `visit` returning true ends the walk. A text whose value is an array or a
 * scalar has no members. One linear pass: strings are skipped with indexOf, and a name with escapes is
 * read by JSON.parse over its own length.
 */
export const forEachTopLevelMember = (
  text: string,
  visit: (name: string, valueAt: number) => boolean | void,
): void => {
  const length = text.length
  let i = 0
  while (i < length && isBlank(text.charCodeAt(i))) i++
  if (text.charCodeAt(i) !== OPEN_OBJECT) return
  let depth = 1
  let expectingName = true
  i++
  while (i < length && depth > 0) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      // Past the closing quote (a valid text has one).
      const end = Math.min(endOfString(text, i) + 1, length)
      if (expectingName && depth === 1) {
        const raw = text.slice(i + 1, end - 1)
        // Past the blanks and the colon between the name and its value.
        let valueAt = end
        while (valueAt < length && (isBlank(text.charCodeAt(valueAt)) || text.charCodeAt(valueAt) === COLON))
          valueAt++
        if (visit(raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw, valueAt)) return
        expectingName = false
        i = valueAt
      } else i = end
    } else {
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++
      else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--
      else if (code === COMMA && depth === 1) expectingName = true
      i++
    }
  }
}
