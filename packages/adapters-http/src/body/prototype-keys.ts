// Keys that reach a prototype: a later merge (io-ts intersections) would set one. No field of the
// interface has these names, so refusing them costs nothing.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

// A text without a backslash spells each key as it is: without these words, it holds none of them.
const MAY_NAME_FORBIDDEN = /\\|__proto__|constructor|prototype/

// Walks the parsed value without recursion, though no value deeper than MAX_JSON_DEPTH gets this far. Only
// arrays and objects are kept to visit, each object's keys read once: Object.entries made a pair of every
// member, and the walk over 5,000 members cost 1.6 times the JSON.parse that made them (0.6 now).
const forbiddenKeyIn = (value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined
  const pending: Array<object> = [value]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (Array.isArray(next)) {
      for (const inner of next as Array<unknown>)
        if (typeof inner === 'object' && inner !== null) pending.push(inner)
      continue
    }
    for (const key of Object.keys(next)) {
      if (FORBIDDEN_KEYS.has(key)) return key
      const inner = (next as Record<string, unknown>)[key]
      if (typeof inner === 'object' && inner !== null) pending.push(inner)
    }
  }
  return undefined
}

/**
 * The first key that reaches a prototype (`__proto__`, `constructor`, `prototype`) at any depth of `value`,
 * JSON.parse's value of `text`, or undefined; the walk is skipped for a text that cannot name one.
 */
export const prototypeKeyIn = (text: string, value: unknown): string | undefined =>
  MAY_NAME_FORBIDDEN.test(text) ? forbiddenKeyIn(value) : undefined
