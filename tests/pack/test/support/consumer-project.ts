import { execFile, execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { manifestOf, type Installable, type Manifest } from './workspace-packages.js'

const exec = promisify(execFile)
const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../fixtures')

/** Runs a command and returns its output; a failure carries the command's own output. */
export const run = async (command: string, args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  try {
    const { stdout } = await exec(command, args, { cwd, maxBuffer: 32 * 1024 * 1024, env: process.env })
    return stdout
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`, { cause: error })
  }
}

/** Runs a compiled fixture of the consumer project and returns what it printed, parsed. */
export const runFixture = async (project: string, name: string): Promise<unknown> =>
  JSON.parse(await run(process.execPath, [join('dist', `${name}.js`)], project)) as unknown

/** The package.json inside a tarball, as pnpm rewrote it. */
export const packedManifest = (tarballs: string, tarball: string): Manifest =>
  JSON.parse(
    execFileSync('tar', ['-xzOf', join(tarballs, tarball), 'package/package.json'], { encoding: 'utf8' }),
  ) as Manifest

const versionOf = (dir: string, group: 'dependencies' | 'devDependencies', name: string): string => {
  const version = manifestOf(dir)[group]?.[name]
  if (version === undefined) throw new Error(`${dir}/package.json has no ${group} entry for ${name}`)
  return version
}

/**
 * Writes a project outside the workspace that depends on the tarballs, as another service
 * would: every @pets/* name, also where one package depends on another, resolves to its local
 * tarball (npm overrides), and everything else comes from the registry as usual.
 */
export const writeConsumerProject = (
  project: string,
  tarballs: string,
  packages: ReadonlyArray<Installable>,
) => {
  const local = Object.fromEntries(
    packages.map((p) => [p.manifest.name, `file:${join(tarballs, p.tarball)}`]),
  )
  const manifest = {
    name: 'pets-embedder',
    private: true,
    type: 'module',
    dependencies: {
      ...local,
      // What the fixtures import themselves, at the versions the workspace uses.
      'fp-ts': versionOf('packages/domain', 'dependencies', 'fp-ts'),
      koa: versionOf('packages/adapters-http', 'dependencies', 'koa'),
      // The optional peer of @pets/adapters-http/testing, which the fixtures load.
      'light-my-request': versionOf('packages/adapters-http', 'devDependencies', 'light-my-request'),
      '@types/koa': versionOf('packages/adapters-http', 'dependencies', '@types/koa'),
      '@types/node': versionOf('.', 'devDependencies', '@types/node'),
      vitest: versionOf('packages/domain', 'devDependencies', 'vitest'),
    },
    overrides: local,
  }
  mkdirSync(project, { recursive: true })
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        types: ['node'],
        rootDir: 'src',
        outDir: 'dist',
      },
      include: ['src'],
    }),
  )
  cpSync(FIXTURES, project, { recursive: true })
}

/** Packs each package with `pnpm pack` into the directory `tarballs`, as it would be published. */
export const packPackages = async (packages: ReadonlyArray<Installable>, tarballs: string) => {
  mkdirSync(tarballs, { recursive: true })
  await Promise.all(packages.map(({ dir }) => run('pnpm', ['pack', '--pack-destination', tarballs], dir)))
}

const npmInstall = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']

/**
 * Fetches what the project takes from the registry into npm's cache (and installs it), retrying
 * a failed fetch once more than npm does by default: the global set-up's step, the only one that
 * goes to the registry.
 */
export const fetchConsumerDependencies = (project: string) =>
  run('npm', [...npmInstall, '--prefer-offline', '--fetch-retries=3'], project)

/**
 * Installs the project's dependencies with npm, as a user would, but from npm's cache only: the
 * global set-up has fetched them, so the tests never wait for the registry. A dependency missing
 * from the cache fails with ENOTCACHED.
 */
export const installConsumerProject = (project: string) => run('npm', [...npmInstall, '--offline'], project)

/** Type-checks and compiles the fixtures against the tarballs' .d.ts, with the workspace's TypeScript. */
export const compileConsumerProject = (project: string) =>
  run(
    process.execPath,
    [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', project],
    project,
  )
