// What the scanners of request bodies (json-depth.ts, integer-text.ts, repeated-member.ts) share: JSON's
// structural characters, the end of a string and the walk over a top-level object's member names. Read
// with charCodeAt and indexOf, never a regular expression.

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

/** JSON's whitespace: space, tab, line feed, carriage return. */
export const isBlank = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

/**
 * Calls `visit` with the name of each member of a valid JSON text's top-level object, in order, and the
 * index where its value starts; `visit` returning true ends the walk. `names` holds where each name opens
 * (its quote), as outlineJson (json-depth.ts) found them in its pass over the text: only the names are read
 * here, not the values between them. A name with escapes is read by JSON.parse over its own length.
 */
export const forEachTopLevelMember = (
  text: string,
  names: ReadonlyArray<number>,
  visit: (name: string, valueAt: number) => boolean | void,
): void => {
  const length = text.length
  for (const open of names) {
    // Past the closing quote (a valid text has one).
    const end = Math.min(endOfString(text, open) + 1, length)
    const raw = text.slice(open + 1, end - 1)
    // Past the blanks and the colon between the name and its value.
    let valueAt = end
    while (valueAt < length && (isBlank(text.charCodeAt(valueAt)) || text.charCodeAt(valueAt) === COLON))
      valueAt++
    if (visit(raw.includes('\\') ? (JSON.parse(text.slice(open, end)) as string) : raw, valueAt)) return
  }
}
