import pg from 'pg'

/**
 * `text` with each `$n` replaced by `values[n - 1]` as a quoted literal, for the simple protocol (a literal
 * is typed by its context, as a parameter is); `$n` inside quotes, identifiers or comments is left alone.
 */
export const inlineParameters = (text: string, values: ReadonlyArray<unknown>): string => {
  // Without values there is nothing to replace (and a `$1` in a dollar-quoted body stays as it is).
  if (values.length === 0) return text
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    const next = text[i + 1]
    let end = i + 1
    if (c === "'" || c === '"') {
      end = text.indexOf(c, i + 1)
      // A doubled quote inside is part of it.
      while (end !== -1 && text[end + 1] === c) end = text.indexOf(c, end + 2)
      end = end === -1 ? text.length : end + 1
    } else if (c === '-' && next === '-') {
      end = text.indexOf('\n', i)
      end = end === -1 ? text.length : end
    } else if (c === '/' && next === '*') {
      end = text.indexOf('*/', i + 2)
      end = end === -1 ? text.length : end + 2
    } else if (c === '$' && /[0-9]/.test(next ?? '')) {
      const digits = /^[0-9]+/.exec(text.slice(i + 1))![0]
      const n = Number(digits)
      if (n < 1 || n > values.length) throw new Error(`no value for $${n}: ${values.length} given`)
      out += toLiteral(values[n - 1])
      i += 1 + digits.length
      continue
    }
    out += text.slice(i, end)
    i = end
  }
  return out
}

// As pg turns a parameter into text (pg's prepareValue), then quoted: an array as an array
// literal, a Buffer as bytea's hex form, a Date in ISO 8601 (every column here is timestamptz).
const toText = (value: unknown): string | null => {
  if (value === null || value === undefined) return null
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value))
    return `{${value
      .map((v: unknown) => {
        const text = toText(v)
        return text === null ? 'NULL' : Array.isArray(v) ? text : `"${text.replace(/(["\\])/g, '\\$1')}"`
      })
      .join(',')}}`
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** A value as a literal of SQL. */
export const toLiteral = (value: unknown): string => {
  const text = toText(value)
  return text === null ? 'NULL' : pg.escapeLiteral(text)
}
