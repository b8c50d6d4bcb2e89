import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COMMA,
  endOfString,
  isBlank,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from './json-text.js'

/**
 * Every body of the contract is one flat object; a value nested deeper than this is refused before
 * JSON.parse builds it. 64 KiB of `[` cost JSON.parse 2–4 ms and the collector 32,000 arrays; refused here,
 * they cost one pass over the text (ARCHITECTURE.md, "Made by hand, on purpose").
 */
export const MAX_JSON_DEPTH = 32

/** What one pass over a JSON text tells before it is parsed. */
export type JsonOutline = {
  /** Whether it opens more than the limit's arrays or objects inside one another, strings aside. */
  readonly tooDeep: boolean
  /**
   * Where each member name of its top-level object opens (the index of its quote), in order, a name given
   * twice found twice; none when its value is no object, or when it is too deep (the pass stops there).
   */
  readonly names: ReadonlyArray<number>
}

const TOO_DEEP: JsonOutline = { tooDeep: true, names: [] }

/**
 * Outlines a JSON text: how deep it nests, and where its top-level object's member names are, so that
 * what reads them (repeated-member.ts, integer-text.ts) skips the values between them. One pass, no
 * regular expression, no recursion; a text that is no JSON gets an answer too (JSON.parse refuses it
 * next), so this only ever refuses sooner what would be refused anyway.
 */
export const outlineJson = (text: string, depthLimit: number): JsonOutline => {
  const names: Array<number> = []
  let depth = 0
  let i = 0
  while (i < text.length && isBlank(text.charCodeAt(i))) i++
  const object = text.charCodeAt(i) === OPEN_OBJECT
  // Whether a member name comes next: after the top-level object's brace, or a comma between its members.
  let nameNext = object
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      if (nameNext && depth === 1) {
        names.push(i)
        nameNext = false
      }
      i = endOfString(text, i)
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > depthLimit) return TOO_DEEP
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && depth > 0) depth--
    else if (code === COMMA && depth === 1) nameNext = object
  }
  return { tooDeep: false, names }
}
