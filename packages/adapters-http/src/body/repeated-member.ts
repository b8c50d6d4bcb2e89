import { outlineJson } from './json-depth.js'
import { forEachTopLevelMember } from './json-text.js'

/**
 * Every body of the contract is one object of at most 3 members. A body of more than MAX_MEMBERS is answered
 * from its first members: a name given twice among them is refused as any body's, and the names past them are
 * counted, never gathered (ARCHITECTURE.md, "Made by hand, on purpose", the repeated members' row).
 */
export const MAX_MEMBERS = 64

/**
 * The first member name that a valid JSON text's top-level object gives more than once among its first
 * `firstMembers` members (all of them unless told), or undefined (an array or a scalar has no members).
 * JSON.parse keeps the last value and drops the others without a word (RFC 8259, 4: the behaviour is
 * "unpredictable"), and a proxy or validator in front may have read the first. CONTRACT refuses unknown
 * fields rather than drop them; refusing a repeated one is the service's own extension of that rule. Every
 * body of the contract is one flat object, so only its own members' names are read, where `names` (the
 * text's outline) has them.
 */
export const repeatedMember = (
  text: string,
  names: ReadonlyArray<number> = outlineJson(text, Number.POSITIVE_INFINITY).names,
  firstMembers: number = Number.POSITIVE_INFINITY,
): string | undefined => {
  const seen = new Set<string>()
  let repeated: string | undefined
  forEachTopLevelMember(text, names, (name) => {
    if (seen.has(name)) repeated = name
    else seen.add(name)
    return repeated !== undefined || seen.size >= firstMembers
  })
  return repeated
}
