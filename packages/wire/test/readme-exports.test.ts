import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// README.md's table of exports against what the package's two entries export, types included: a name added
// to src/index.ts (or to src/api-key-secret.ts, the subpath) without its row, or a row for a name gone, fails.

const SUBPATH = '@pets/wire/api-key-secret'
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')

// The names in the first column of the table under "| export |", each row's backticked identifiers; a row
// that says `(from @pets/wire/api-key-secret)` lists the subpath's.
const namesInReadme = (): { index: ReadonlyArray<string>; subpath: ReadonlyArray<string> } => {
  const lines = read('../README.md').split('\n')
  const header = lines.findIndex((line) => line.startsWith('| export |'))
  if (header === -1) throw new Error('packages/wire/README.md has no table whose header is "| export |"')
  const end = lines.findIndex((line, i) => i > header && !line.startsWith('|'))
  const index: Array<string> = []
  const subpath: Array<string> = []
  for (const row of lines.slice(header + 2, end === -1 ? undefined : end)) {
    const cell = row.split('|')[1] ?? ''
    const names = [...cell.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((match) => match[1]!)
    ;(cell.includes(`\`${SUBPATH}\``) ? subpath : index).push(...names)
  }
  return { index: index.sort(), subpath: subpath.sort() }
}

// The names a source file exports: `export { a, type B, c as d } from '…'` and `export const|function|class|
// type|interface name`. Any other export statement fails, so that none is missed.
const namesExportedBy = (source: string, file: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  const rest = source
    .replace(/^export (?:type )?\{([^}]*)\}(?: from '[^']*')?\n/gm, (_, list: string) => {
      for (const item of list.split(',').map((name) => name.trim()))
        if (item !== '')
          names.push(
            item
              .replace(/^type /, '')
              .split(' as ')
              .at(-1)!
              .trim(),
          )
      return ''
    })
    .replace(
      /^export (?:declare )?(?:const|let|function|class|type|interface|enum) ([\w$]+)/gm,
      (_, name: string) => {
        names.push(name)
        return ''
      },
    )
  const unread = rest.split('\n').find((line) => line.startsWith('export'))
  if (unread !== undefined) throw new Error(`${file}: an export this test does not read: ${unread}`)
  return [...new Set(names)].sort()
}

describe("README.md's table of exports", () => {
  const readme = namesInReadme()

  it.each([
    ['src/index.ts', '../src/index.js', readme.index],
    ['src/api-key-secret.ts', '../src/api-key-secret.js', readme.subpath],
  ] as const)('names every export of %s, and nothing else', async (file, module, listed) => {
    const exported = namesExportedBy(read(`../${file}`), file)
    // What the module has at run time is among them: the reading of the source missed no value.
    const values = Object.keys((await import(module)) as object)
    expect(
      values.filter((name) => !exported.includes(name)),
      `${file}: values the source reading missed`,
    ).toEqual([])
    const missing = exported.filter((name) => !listed.includes(name))
    const extra = listed.filter((name) => !exported.includes(name))
    expect(
      { missing, extra },
      `packages/wire/README.md, the table of exports: "missing" are exported by ${file} and have no row, ` +
        `"extra" are in a row and not exported by it`,
    ).toEqual({ missing: [], extra: [] })
  })
})
