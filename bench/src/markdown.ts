// What the sections of RESULTS.md are written with.

const row = (cells: ReadonlyArray<string | number>) => `| ${cells.join(' | ')} |`

/** A Markdown table; by default the first column left-aligned, the others right-aligned. */
export const table = (
  head: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
  align?: string,
): string =>
  [row(head), align ?? row(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(row)].join('\n')

/** A whole number with thousands separators. */
export const n0 = (n: number): string => Math.round(n).toLocaleString('en')
/** Milliseconds with two decimals. */
export const ms = (n: number): string => n.toFixed(2)
/** A ratio, such as 0.93×. */
export const x = (n: number): string => `${n.toFixed(2)}×`
