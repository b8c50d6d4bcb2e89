// What the reports (RESULTS.md, labs/*.md) are written with.

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

/** The anchor GitHub gives a heading's text: lower case, punctuation dropped, each space a hyphen. */
export const slug = (heading: string): string =>
  heading
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

/** The anchors of every heading of a Markdown text, in order (code blocks aside). */
export const anchorsOf = (markdown: string): ReadonlyArray<string> => {
  let inCode = false
  const anchors: Array<string> = []
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode
    else if (!inCode && /^#{1,6} /.test(line)) anchors.push(slug(line))
  }
  return anchors
}
