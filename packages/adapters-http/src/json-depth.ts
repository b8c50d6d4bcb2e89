/**
 * Every body of the contract is one flat object; a value nested deeper than this is refused before
 * JSON.parse builds it. 64 KiB of `[` cost JSON.parse 2–4 ms and the collector 32,000 arrays; refused here,
 * they cost one pass over the text (ARCHITECTURE.md, "Made by hand, on purpose").
 */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

// The index of the quote that closes the string opened at `open`, or the text's length when none does.
// A quote is escaped when an odd number of backslashes stand before it; each backslash is counted for
// the one quote that follows it, so the whole text is read at most twice.
const endOfString = (text: string, open: number): number => {
  let quote = text.indexOf('"', open + 1)
  while (quote !== -1) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
    quote = text.indexOf('"', quote + 1)
  }
  return text.length
}

/**
 * Whether a JSON text opens more than `limit` arrays or objects inside one another, strings aside.
 * One pass, no regular expression, no recursion; a text that is no JSON gets an answer too (JSON.parse
 * refuses it next), so this only ever refuses sooner what would be refused anyway.
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) i = endOfString(text, i)
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && depth > 0) depth--
  }
  return false
}
