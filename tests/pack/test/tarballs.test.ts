import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { packedManifest as manifestIn, run, runFixture as runIn } from './support/consumer-project.js'
import { installablePackages, ownManifest, rootManifest } from './support/workspace-packages.js'

// Packed, installed in a project outside the workspace and compiled by the global set-up.
const { tarballs, project } = inject('packed')
const packages = installablePackages()
const names = packages.map((p) => p.manifest.name)

/** The files of a tarball, without the leading `package/`. */
const filesOf = (tarball: string): ReadonlyArray<string> =>
  execFileSync('tar', ['-tzf', join(tarballs, tarball)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''))

const packedManifest = (tarball: string) => manifestIn(tarballs, tarball)
const runFixture = (name: string) => runIn(project, name)

describe('the packed packages', () => {
  it('are every package under packages/ and @pets/api, each built before these tests run', () => {
    expect(names).toEqual(expect.arrayContaining(['@pets/domain', '@pets/client', '@pets/api']))
    const declared = Object.keys(ownManifest().devDependencies ?? {})
    expect(names.filter((name) => !declared.includes(name))).toEqual([])
  })

  it.each(packages)(
    '$manifest.name has a version, a description, an exports map with types, and files',
    ({ manifest }) => {
      expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/)
      expect(manifest.description).toMatch(/\S/)
      expect(manifest.files).toEqual(['dist', 'src', 'README.md'])
      expect(Object.keys(manifest.exports ?? {})).toContain('.')
      for (const target of Object.values(manifest.exports ?? {})) {
        expect(target.types).toMatch(/^\.\/dist\/.*\.d\.ts$/)
        expect(target.default).toMatch(/^\.\/dist\/.*\.js$/)
      }
    },
  )

  it.each(packages.filter((p) => p.dir.includes('/packages/')))(
    '$manifest.name says whether importing it has side effects, so that bundlers can drop what is unused',
    ({ manifest }) => {
      expect(typeof manifest.sideEffects).toBe('boolean')
    },
  )

  // The Node versions the project runs on (the root's engines): an install on an older Node is warned.
  it.each(packages)(
    '$manifest.name declares the Node versions it runs on, as the workspace does',
    ({ tarball }) => {
      expect(rootManifest().engines?.['node']).toMatch(/^>=\d+\.\d+$/)
      expect(packedManifest(tarball).engines).toEqual(rootManifest().engines)
    },
  )

  it.each(packages)(
    '$manifest.name pins its @pets dependencies to versions, never workspace:',
    ({ tarball }) => {
      const packed = packedManifest(tarball)
      expect(JSON.stringify(packed)).not.toContain('workspace:')
      for (const [name, version] of Object.entries(packed.dependencies ?? {}))
        if (name.startsWith('@pets/'))
          expect(version).toBe(packages.find((p) => p.manifest.name === name)?.manifest.version)
    },
  )

  it.each(packages)(
    '$manifest.name ships dist, the src its source maps point to, README.md and package.json, and no test',
    ({ tarball }) => {
      const files = filesOf(tarball)
      expect(files).toContain('README.md')
      expect(files).toContain('dist/index.js')
      expect(files).toContain('dist/index.d.ts')
      expect(files).toContain('src/index.ts')
      expect(
        files.filter(
          (f) => !f.startsWith('dist/') && !f.startsWith('src/') && f !== 'README.md' && f !== 'package.json',
        ),
      ).toEqual([])
      expect(files.filter((f) => /\.test\.|(^|\/)test\//.test(f))).toEqual([])
    },
  )

  // tsc leaves in dist/ the output of a source since deleted, which a tarball would ship (each build clears
  // dist/). apps/api's bundle, dist/bin/, is made from dist/ (and cleared) by its scripts/bundle.mjs.
  it.each(packages)(
    '$manifest.name ships no file in dist/ but the output of a file in src/',
    ({ tarball }) => {
      const files = filesOf(tarball)
      const sources = new Set(files.filter((f) => f.startsWith('src/')))
      const stale = files.filter(
        (f) =>
          f.startsWith('dist/') &&
          !f.startsWith('dist/bin/') &&
          !sources.has(f.replace(/^dist\//, 'src/').replace(/\.(js|d\.ts)(\.map)?$/, '.ts')),
      )
      expect(stale, 'files of dist/ whose source is gone: run the build again').toEqual([])
    },
  )

  it.each(packages)('$manifest.name has in its tarball every file its exports map names', ({ tarball }) => {
    const files = filesOf(tarball)
    for (const target of Object.values(packedManifest(tarball).exports ?? {}))
      for (const path of [target.types, target.default]) expect(files).toContain(path?.replace(/^\.\//, ''))
  })
})

describe('a project outside the workspace that installs the tarballs', () => {
  it('runs the use cases of the domain on the in-memory adapters, without HTTP', async () => {
    expect(await runFixture('use-cases')).toEqual({
      created: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      listed: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }],
      refused: ['name', 'categoryId'],
    })
  })

  it("runs the root README's first library example as it is written there", async () => {
    // The README's block, unindented from its list item, is the fixture's code up to its end marker.
    const readme = readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8')
    const item = readme.slice(readme.indexOf('1. **The use cases, without HTTP**'))
    const block = item.slice(item.indexOf('```ts\n') + 6, item.indexOf('   ```\n'))
    const fixture = readFileSync(join(import.meta.dirname, '../fixtures/src/readme-library.ts'), 'utf8')
    const code = fixture.slice(
      fixture.indexOf('import '),
      fixture.indexOf("// The README's example ends here."),
    )
    expect(block.replace(/^ {3}/gm, '')).toBe(code)
    expect(await runFixture('readme-library')).toMatchObject({
      _tag: 'Right',
      right: { pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] },
    })
  })

  it('mounts the pets router in its own Koa app with its own authentication, and calls it with the client', async () => {
    expect(await runFixture('embed-router')).toEqual({
      created: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      names: ['Rex', 'Tom'],
      denied: 'Unauthorized',
      own: { mine: true },
    })
  })

  it('builds the whole service from a configuration object with createService', async () => {
    expect(await runFixture('whole-service')).toEqual({
      created: 201,
      pet: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      health: 200,
    })
  })

  it('loads the PostgreSQL adapter and its testing entry', async () => {
    const loaded = (await runFixture('postgres-entries')) as { migrations: number; testing: Array<string> }
    expect(loaded.migrations).toBeGreaterThan(0)
    expect(loaded.testing).toEqual(['function', 'function'])
  })

  it("runs the domain's contract suites from its ./testing entry with vitest", async () => {
    const report = join(project, 'report.json')
    await run(
      process.execPath,
      [
        join('node_modules', 'vitest', 'vitest.mjs'),
        'run',
        'test',
        '--reporter=json',
        `--outputFile=${report}`,
      ],
      project,
    )
    const { numPassedTests, numFailedTests } = JSON.parse(readFileSync(report, 'utf8')) as Record<
      string,
      number
    >
    expect(numFailedTests).toBe(0)
    expect(numPassedTests).toBeGreaterThan(5)
  })
})
