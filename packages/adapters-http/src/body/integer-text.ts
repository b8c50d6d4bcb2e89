import { outlineJson } from './json-depth.js'
import { forEachTopLevelMember } from './json-text.js'

const MINUS = 0x2d
const ZERO = 0x30
const NINE = 0x39
const POINT = 0x2e
// 2^53 − 1, the largest integer a binary64 carries along with every integer below it.
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER)

const isDigit = (code: number) => code >= ZERO && code <= NINE
// Anything a JSON number token may hold: digits, sign, point and exponent.
const inNumber = (code: number) =>
  isDigit(code) || code === POINT || code === 0x65 || code === 0x45 || code === 0x2b || code === MINUS

// Digits at [start, end) that are at most 2^53 − 1: fewer digits, or as many and not above it.
const withinSafeRange = (text: string, start: number, end: number): boolean => {
  const digits = end - start
  if (digits !== MAX_SAFE_DIGITS.length) return digits < MAX_SAFE_DIGITS.length
  for (let i = 0; i < digits; i++) {
    const difference = text.charCodeAt(start + i) - MAX_SAFE_DIGITS.charCodeAt(i)
    if (difference !== 0) return difference < 0
  }
  return true
}

// Past this many digits an exponent is out of any range that matters here.
const LONGEST_EXPONENT = 9

/**
 * Whether a token with a fraction or an exponent (`3.0`, `1e2`) denotes an integer within ±(2^53 − 1),
 * exactly, on the text. Index loops, not `/0+$/`, so that a run of zeros costs linear time.
 */
const denotesSafeInteger = (text: string, first: number, end: number): boolean => {
  let i = first
  while (i < end && isDigit(text.charCodeAt(i))) i++
  // The digits run from `first` to `digitsEnd`, with the point (if any) at `point` among them.
  const point = text.charCodeAt(i) === POINT ? i : -1
  if (point !== -1) {
    i++
    while (i < end && isDigit(text.charCodeAt(i))) i++
  }
  const digitsEnd = i
  const fractionLength = point === -1 ? 0 : digitsEnd - point - 1
  let exponent = 0
  if (i < end) {
    const sign = text.charCodeAt(i + 1)
    let from = sign === 0x2b || sign === MINUS ? i + 2 : i + 1
    // Its leading zeros say nothing: `1e+0000000002` is 100.
    while (from < end - 1 && text.charCodeAt(from) === ZERO) from++
    const size = end - from > LONGEST_EXPONENT ? 10 ** LONGEST_EXPONENT : Number(text.slice(from, end))
    exponent = sign === MINUS ? -size : size
  }
  let lead = first
  while (lead < digitsEnd && (text.charCodeAt(lead) === ZERO || lead === point)) lead++
  if (lead === digitsEnd) return true
  let last = digitsEnd - 1
  while (text.charCodeAt(last) === ZERO || last === point) last--
  const trailingZeros = digitsEnd - 1 - last - (point > last ? 1 : 0)
  // The power of ten the last significant digit stands for: below 0, a fraction is left.
  const shift = exponent - fractionLength + trailingZeros
  if (shift < 0) return false
  const significant = last - lead + 1 - (point > lead && point < last ? 1 : 0)
  const digits = significant + shift
  if (digits !== MAX_SAFE_DIGITS.length) return digits < MAX_SAFE_DIGITS.length
  // As many digits as 2^53 − 1: the significant ones, then `shift` zeros, against its digits.
  for (let k = 0, at = lead; k < digits; k++, at++) {
    if (at === point) at++
    const difference = (at <= last ? text.charCodeAt(at) : ZERO) - MAX_SAFE_DIGITS.charCodeAt(k)
    if (difference !== 0) return difference < 0
  }
  return true
}

const isSafeIntegerToken = (text: string, start: number, end: number): boolean => {
  const first = text.charCodeAt(start) === MINUS ? start + 1 : start
  for (let i = first; i < end; i++)
    if (!isDigit(text.charCodeAt(i))) return denotesSafeInteger(text, first, end)
  return withinSafeRange(text, first, end)
}

/**
 * Whether member `name` of a valid JSON text's top-level object is a number that denotes an integer within
 * ±(2^53 − 1), read on its own text (its last occurrence, the one JSON.parse keeps): undefined when the
 * member is absent or no number, or the text's value is no object. Linear: only the members' names are
 * read, where `names` (the text's outline) has them, and the number itself.
 */
export const memberIsSafeInteger = (
  text: string,
  name: string,
  names: ReadonlyArray<number> = outlineJson(text, Number.POSITIVE_INFINITY).names,
): boolean | undefined => {
  let found: boolean | undefined
  forEachTopLevelMember(text, names, (member, valueAt) => {
    if (member !== name) return
    const code = text.charCodeAt(valueAt)
    let end = valueAt
    while (end < text.length && inNumber(text.charCodeAt(end))) end++
    // A string, an array, an object, true, false or null: no number.
    found = code === MINUS || isDigit(code) ? isSafeIntegerToken(text, valueAt, end) : undefined
  })
  return found
}
