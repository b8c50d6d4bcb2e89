import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  compileConsumerProject,
  installConsumerProject,
  packPackages,
  run,
  writeConsumerProject,
} from './support/consumer-project.js'
import { installablePackages, ownManifest, type Manifest } from './support/workspace-packages.js'

const packages = installablePackages()
const names = packages.map((p) => p.manifest.name)
const started = Date.now()
const progress = (step: string) =>
  console.log(`[pack ${((Date.now() - started) / 1000).toFixed(1)} s] ${step}`)

// Outside the workspace, so that nothing resolves through its node_modules.
const work = mkdtempSync(join(tmpdir(), 'pets-pack-'))
const tarballs = join(work, 'tarballs')
const project = join(work, 'embedder')

/** The files of a tarball, without the leading `package/`. */
const filesOf = (tarball: string): ReadonlyArray<string> =>
  execFileSync('tar', ['-tzf', join(tarballs, tarball)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''))

/** The package.json inside a tarball, as pnpm rewrote it. */
const packedManifest = (tarball: string): Manifest =>
  JSON.parse(
    execFileSync('tar', ['-xzOf', join(tarballs, tarball), 'package/package.json'], { encoding: 'utf8' }),
  ) as Manifest

/** Runs a compiled fixture of the consumer project and returns what it printed, parsed. */
const runFixture = async (name: string): Promise<unknown> =>
  JSON.parse(await run(process.execPath, [join('dist', `${name}.js`)], project)) as unknown

beforeAll(async () => {
  progress(`packing ${names.join(', ')} into ${tarballs}`)
  for (const { dir, manifest } of packages)
    if (!existsSync(join(dir, 'dist')))
      throw new Error(`${manifest.name} has no dist/: list it in tests/pack/package.json devDependencies`)
  await packPackages(packages, tarballs)
  progress('writing the consumer project')
  writeConsumerProject(project, tarballs, packages)
  progress("npm install --offline (other dependencies from npm's cache, which the global set-up filled)")
  await installConsumerProject(project)
  progress('type-checking and compiling the fixtures against the packed .d.ts')
  await compileConsumerProject(project)
  progress('ready')
})

afterAll(() => {
  rmSync(work, { recursive: true, force: true })
})

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

  it('tests the HTTP API and the client without a network through fetchOf of the ./testing entry', async () => {
    expect(await runFixture('in-process-fetch')).toEqual({
      created: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      names: ['Rex'],
      refused: 401,
      head: [200, null],
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
