import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import {
  compileConsumerProject,
  fetchConsumerDependencies,
  installConsumerProject,
  packPackages,
  writeConsumerProject,
} from './support/consumer-project.js'
import { installablePackages } from './support/workspace-packages.js'

/** Where the set-up put the tarballs, and the project outside the workspace installed from them. */
export type Packed = { readonly tarballs: string; readonly project: string }

declare module 'vitest' {
  export interface ProvidedContext {
    packed: Packed
  }
}

/**
 * Packs the packages and prepares, once for every test file and outside their time limits (vitest gives a
 * global set-up none), a project outside the workspace that installs the tarballs. First it fills npm's
 * cache with everything the project takes from the registry, the only step that goes there, in a project of
 * its own; then it installs the project from the cache alone (`--offline`, as the tests' own step used to)
 * and compiles its fixtures. A slow registry makes this step slow, not the run red.
 */
export default async function setup(vitest: TestProject): Promise<() => void> {
  const started = Date.now()
  const progress = (step: string) =>
    console.log(`[pack ${((Date.now() - started) / 1000).toFixed(1)} s] ${step}`)
  // Outside the workspace, so that nothing resolves through its node_modules.
  const work = mkdtempSync(join(tmpdir(), 'pets-pack-'))
  const teardown = () => rmSync(work, { recursive: true, force: true })
  try {
    const packages = installablePackages()
    const tarballs = join(work, 'tarballs')
    const project = join(work, 'embedder')
    for (const { dir, manifest } of packages)
      if (!existsSync(join(dir, 'dist')))
        throw new Error(`${manifest.name} has no dist/: list it in tests/pack/package.json devDependencies`)
    progress(`packing ${packages.map((p) => p.manifest.name).join(', ')} into ${tarballs}`)
    await packPackages(packages, tarballs)
    progress("fetching the packed packages' dependencies from the registry into npm's cache")
    const fetching = join(work, 'fetching')
    writeConsumerProject(fetching, tarballs, packages)
    await fetchConsumerDependencies(fetching).catch((error: unknown) => {
      throw new Error(
        "Could not fetch the packed packages' dependencies from the npm registry into npm's cache " +
          '(the project is installed from there, offline).',
        { cause: error },
      )
    })
    progress('writing the consumer project, and npm install --offline')
    writeConsumerProject(project, tarballs, packages)
    await installConsumerProject(project)
    progress('type-checking and compiling the fixtures against the packed .d.ts')
    await compileConsumerProject(project)
    progress('ready')
    vitest.provide('packed', { tarballs, project })
    return teardown
  } catch (error) {
    teardown()
    throw error
  }
}
