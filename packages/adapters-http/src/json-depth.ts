import { CLOSE_ARRAY, CLOSE_OBJECT, endOfString, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-text.js'

/**
 * Every body of the contract is one flat object; a value nested deeper than this is refused before
 * JSON.parse builds it. 64 KiB of `[` cost JSON.parse 2–4 ms and the collector 32,000 arrays; refused here,
 * they cost one pass over the text (ARCHITECTURE.md, "Made by hand, on purpose").
 */
export const MAX_JSON_DEPTH = 32

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
