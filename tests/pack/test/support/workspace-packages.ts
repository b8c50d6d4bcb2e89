import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The root of the workspace. */
export const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../..')

/** The parts of a package.json these tests read. */
export type Manifest = {
  readonly name: string
  readonly version?: string
  readonly private?: boolean
  readonly description?: string
  readonly sideEffects?: boolean
  readonly engines?: Readonly<Record<string, string>>
  readonly files?: ReadonlyArray<string>
  readonly exports?: Readonly<Record<string, { readonly types?: string; readonly default?: string }>>
  readonly dependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
}

/** A workspace package that other services install. */
export type Installable = { readonly dir: string; readonly manifest: Manifest; readonly tarball: string }

const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest

/** The tarball name `pnpm pack` gives a package: `@pets/domain` 0.1.0 → pets-domain-0.1.0.tgz. */
const tarballName = ({ name, version }: Manifest) =>
  `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`

/**
 * Every package under packages/, and every app that is not private: what other services install.
 * A new package is covered without editing these tests.
 */
export const installablePackages = (): ReadonlyArray<Installable> =>
  ['packages', 'apps']
    .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: readManifest(dir) }))
    .filter(({ dir, manifest }) => dir.includes('/packages/') || manifest.private !== true)
    .map(({ dir, manifest }) => ({ dir, manifest, tarball: tarballName(manifest) }))

/** The manifest of a workspace package by its directory under the root, such as `packages/domain`. */
export const manifestOf = (dir: string): Manifest => readManifest(join(ROOT, dir))

/** The workspace's own package.json. */
export const rootManifest = (): Manifest => readManifest(ROOT)

/** The manifest of these tests. */
export const ownManifest = (): Manifest => readManifest(resolve(fileURLToPath(import.meta.url), '../../..'))
