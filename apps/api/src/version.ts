import { createRequire } from 'node:module'

// Replaced by @pets/api's version from package.json when scripts/bundle.mjs bundles the bin (esbuild's
// define): the bin answers `version` without reading a file, wherever it was copied. Unbundled (dist/main.js,
// the sources under test), it is read from the package.json beside dist/ and src/.
declare const PETS_API_VERSION: string

/** The version of @pets/api that the bin was built from: `animal-store version`. */
export const apiVersion = (): string =>
  typeof PETS_API_VERSION === 'string'
    ? PETS_API_VERSION
    : (createRequire(import.meta.url)('../package.json') as { version: string }).version
