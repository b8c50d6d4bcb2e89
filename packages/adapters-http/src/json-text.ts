// What the scanners of request bodies (json-depth.ts, integer-text.ts, repeated-member.ts) share: JSON's
// structural characters and the end of a string. Read with charCodeAt and indexOf, never a regular expression.

export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const OPEN_ARRAY = 0x5b
export const CLOSE_ARRAY = 0x5d
export const OPEN_OBJECT = 0x7b
export const CLOSE_OBJECT = 0x7d
export const COMMA = 0x2c

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
