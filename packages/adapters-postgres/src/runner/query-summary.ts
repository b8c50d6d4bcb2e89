/** What a span says of a statement: its operation and what it works on (`INSERT pets`), never a value. */
export type QuerySummary = { readonly operation: string; readonly text: string }

const OPERATIONS = new Set([
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'CALL',
  'LISTEN',
  'NOTIFY',
  'SET',
  'SHOW',
])
// The word after which each operation names its target.
const TARGET_AFTER: Readonly<Record<string, string>> = { SELECT: 'FROM', INSERT: 'INTO', DELETE: 'FROM' }
const MOST_REMEMBERED = 512
const known = new Map<string, QuerySummary>()

// The words of `text` outside parentheses, quotes and strings, in one pass: a CTE's body is skipped.
const topLevelWords = (text: string): Array<string> => {
  const words: Array<string> = []
  let depth = 0
  let word = ''
  let quote: string | undefined
  for (const c of text) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      else if (depth === 0 && quote === '"') word += c
      continue
    }
    const letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_'
    if (letter && depth === 0) {
      word += c
      continue
    }
    if (word !== '') words.push(word)
    word = ''
    if (c === '(') depth++
    else if (c === ')') depth = Math.max(0, depth - 1)
    else if (c === "'" || c === '"') quote = c
  }
  if (word !== '') words.push(word)
  return words
}

const summarize = (text: string): QuerySummary => {
  const words = topLevelWords(text)
  const at = words.findIndex((w) => OPERATIONS.has(w.toUpperCase()))
  if (at < 0) return { operation: 'OTHER', text: 'OTHER' }
  const operation = words[at]!.toUpperCase()
  const after = TARGET_AFTER[operation]
  const rest = words.slice(at + 1)
  const named = after === undefined ? -1 : rest.findIndex((w) => w.toUpperCase() === after)
  const target =
    operation === 'UPDATE' || operation === 'CALL' ? rest[0] : named < 0 ? undefined : rest[named + 1]
  return { operation, text: target === undefined ? operation : `${operation} ${target}` }
}

/**
 * The summary of a statement's text, as the database conventions' `db.query.summary` wants it: the main
 * operation (after any `WITH`) and its table or function. Statements are few and fixed: each is read once.
 */
export const querySummary = (text: string): QuerySummary => {
  const found = known.get(text)
  if (found !== undefined) return found
  const summary = summarize(text)
  if (known.size < MOST_REMEMBERED) known.set(text, summary)
  return summary
}
