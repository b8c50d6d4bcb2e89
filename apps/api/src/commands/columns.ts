import stringWidth from 'string-width'

/**
 * Rows of cells as lines of aligned columns, two spaces apart, padded by the columns a terminal gives each
 * cell: an emoji or an East Asian wide character takes 2, a combining mark none (string-width, by grapheme).
 * Padding by UTF-16 code units put a row with an emoji name 2 or 3 columns left of the others.
 */
export const alignColumns = (rows: ReadonlyArray<ReadonlyArray<string>>): Array<string> => {
  const widths = rows.map((row) => row.map((cell) => stringWidth(cell)))
  const columns = Math.max(0, ...rows.map((row) => row.length))
  const widest = Array.from({ length: columns }, (_, i) => Math.max(0, ...widths.map((w) => w[i] ?? 0)))
  return rows.map((row, r) =>
    row
      .map((cell, i) => cell + ' '.repeat(widest[i]! - widths[r]![i]!))
      .join('  ')
      .trimEnd(),
  )
}
