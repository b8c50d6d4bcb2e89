import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fetchConsumerDependencies, packPackages, writeConsumerProject } from './support/consumer-project.js'
import { installablePackages } from './support/workspace-packages.js'

/**
 * Fills npm's cache with everything the consumer project takes from the registry, before the
 * tests and outside their time limits (vitest gives a global set-up none): the test then installs
 * the tarballs offline, so a slow registry makes this step slow, not the run red. It writes the
 * same project from tarballs packed the same way, so that both installs resolve the same versions.
 */
export default async function fetchRegistryDependencies(): Promise<void> {
  const started = Date.now()
  console.log("[pack] fetching the packed packages' dependencies from the registry into npm's cache")
  const work = mkdtempSync(join(tmpdir(), 'pets-pack-fetch-'))
  try {
    const packages = installablePackages()
    const tarballs = join(work, 'tarballs')
    const project = join(work, 'embedder')
    await packPackages(packages, tarballs)
    writeConsumerProject(project, tarballs, packages)
    await fetchConsumerDependencies(project).catch((error: unknown) => {
      throw new Error(
        "Could not fetch the packed packages' dependencies from the npm registry into npm's cache " +
          '(the tarball test installs them from there, offline).',
        { cause: error },
      )
    })
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  console.log(
    `[pack] the registry's packages are in npm's cache (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  )
}
