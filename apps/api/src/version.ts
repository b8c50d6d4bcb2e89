// Replaced by @pets/api's version from package.json when scripts/bundle.mjs bundles the bin (esbuild's
// define): the bin answers `version` without reading a file, wherever it was copied.
declare const PETS_API_VERSION: string

/** The version of @pets/api that the bin was built from: `animal-store version`. */
export const apiVersion = (): string => PETS_API_VERSION
