// Bundles the built service (dist/main.js and everything it imports) into one file,
// dist/animal-store.mjs: what `pnpm start`, the bin and the tests run. Node 20 spends most of a
// cold start resolving and loading several hundred small modules (bench/RESULTS.md); one file
// starts in about two thirds of the time, and holds less memory.
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'

const dist = fileURLToPath(new URL('../dist/', import.meta.url))

await build({
  entryPoints: [`${dist}main.js`],
  outfile: `${dist}animal-store.mjs`,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  // Found at run time from the installed packages: pg's optional native binding (never used),
  // and swagger-ui-dist, whose files the docs page serves from its folder.
  external: ['pg-native', 'swagger-ui-dist'],
  // The CommonJS packages inside call require() for node's modules; an ES module has none.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
})
