import { build, type BuildFailure, type Plugin } from 'esbuild'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// The edits the bundle makes to its dependencies (ARCHITECTURE.md, "Made by hand": their guard is the build).
const { LAZY_REQUIRES, NODE_ONLY_PG } = (await import(
  new URL('../scripts/lazy-requires.mjs', import.meta.url).href
)) as { readonly LAZY_REQUIRES: ReadonlyArray<Plugin>; readonly NODE_ONLY_PG: Plugin }
const EDITS = [NODE_ONLY_PG, ...LAZY_REQUIRES]

const project = mkdtempSync(join(tmpdir(), 'lazy-requires-'))
afterAll(() => rmSync(project, { recursive: true, force: true }))

const bundle = (entry: string) =>
  build({
    entryPoints: [join(project, entry)],
    bundle: true,
    write: false,
    platform: 'node',
    logLevel: 'silent',
    plugins: EDITS,
  })

describe("the bundle's edits of its dependencies (scripts/lazy-requires.mjs)", () => {
  it('fail the build, naming the edit, when the file it edits is no longer bundled (a dependency moved it)', async () => {
    writeFileSync(join(project, 'nothing.js'), 'console.log(1)\n')
    const failure = await bundle('nothing.js').then(
      () => undefined,
      (error: unknown) => error as BuildFailure,
    )
    expect(failure?.errors.map(({ text }) => text.replace(/.*: /, ''))).toEqual(
      EDITS.map(({ name }) => `review ${name}`),
    )
    expect(failure?.errors[0]?.text).toMatch(/^no file matches .*pg.*stream/)
  })

  it('fail the build when the file is bundled without the line an edit expects', async () => {
    mkdirSync(join(project, 'node_modules', 'type-is'), { recursive: true })
    writeFileSync(join(project, 'node_modules', 'type-is', 'index.js'), 'module.exports = 1\n')
    writeFileSync(join(project, 'type-is.js'), "require('type-is')\n")
    await expect(bundle('type-is.js')).rejects.toThrow(/no longer holds .*: review lazy-mime-type-is/)
  })
})
