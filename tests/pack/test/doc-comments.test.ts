import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, inject, it } from 'vitest'
import { installablePackages } from './support/workspace-packages.js'

// Installed from the tarballs by the global set-up, outside the workspace.
const { project } = inject('packed')

/** The entries of each package's exports map, as `@pets/domain/testing` and the `.d.ts` it names. */
const entries = installablePackages().flatMap(({ manifest }) =>
  Object.entries(manifest.exports ?? {}).map(([subpath, { types = '' }]) => ({
    entry: `${manifest.name}${subpath.slice(1)}`,
    types: join(project, 'node_modules', manifest.name, types),
  })),
)

// One program over every entry: each of its own parsed @types/node and the packages again (a few seconds each).
let program: ts.Program | undefined
const compiled = (): ts.Program =>
  (program ??= ts.createProgram(
    entries.map(({ types }) => types),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      noEmit: true,
    },
  ))

/** The names an entry exports without a doc comment (`/** … *\/`), which an editor would show. */
const undocumented = (types: string): ReadonlyArray<string> => {
  const program = compiled()
  const checker = program.getTypeChecker()
  const file = program.getSourceFile(types)
  const module = file === undefined ? undefined : checker.getSymbolAtLocation(file)
  if (module === undefined) throw new Error(`${types} is no module`)
  return checker
    .getExportsOfModule(module)
    .filter((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() === ''
    })
    .map(({ name }) => name)
}

describe("the packed packages' exports", () => {
  it.each(entries)(
    '$entry: every export has a doc comment (root README, "Use it as a library")',
    ({ types }) => {
      expect(undocumented(types)).toEqual([])
    },
  )
})
