// Bundles the built service (dist/main.js and all it imports) into dist/bin/: the entry, animal-store.mjs,
// and chunks only a command or the PostgreSQL storage loads. `pnpm start`, the bin, the benchmark and the
// end-to-end tests run it: a few files start faster and hold less memory than hundreds of small modules
// (bench/RESULTS.md#cold-start-and-idle-memory). Identifiers are not minified: esbuild's keepNames would
// wrap every function made per request. A source map lies beside each file.
import { build } from 'esbuild'
import { chmodSync, readFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { LAZY_REQUIRES, NODE_ONLY_PG } from './lazy-requires.mjs'

const dist = fileURLToPath(new URL('../dist/', import.meta.url))
const { NODE_FLAGS } = await import(new URL('../dist/node-flags.js', import.meta.url).href)
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
rmSync(`${dist}bin`, { recursive: true, force: true })

// fp-ts and io-ts ship CommonJS (lib/, what the sources import) and the same code as ES modules (es6/).
// Bundled from CommonJS, each use of an import calls a getter on the module's namespace, on every request
// (bench/labs/profiles.md); from es6/ the bundle calls the functions themselves. A file es6/ lacks fails
// the build rather than falling back.
const esModulesOfFpTs = {
  name: 'es-modules-of-fp-ts',
  setup(bundler) {
    const redirect = async (path, args) => {
      const found = await bundler.resolve(path, { kind: args.kind, resolveDir: args.resolveDir })
      if (found.errors.length > 0) throw new Error(`${args.path}: no ES module at ${path}`)
      return { path: found.path }
    }
    bundler.onResolve({ filter: /^fp-ts\/lib\/[\w.]+$/ }, (args) =>
      redirect(args.path.replace('/lib/', '/es6/'), args),
    )
    bundler.onResolve({ filter: /^io-ts$/ }, (args) => redirect('io-ts/es6/index.js', args))
  },
}

await build({
  entryPoints: { 'animal-store': `${dist}main.js` },
  outdir: `${dist}bin`,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  // Found at run time from the installed packages: pg's optional native binding (never used),
  // and swagger-ui-dist, whose files the docs page serves from its folder.
  external: ['pg-native', 'swagger-ui-dist'],
  // `animal-store version`: written in at build time (src/version.ts), so that nothing is read to answer it.
  define: { PETS_API_VERSION: JSON.stringify(version) },
  // The first line runs the file with node and the flags of src/node-flags.ts (none); a chunk's is
  // never read. The CommonJS packages inside call require() for node's modules; an ES module has none.
  banner: {
    js:
      `#!/usr/bin/env ${NODE_FLAGS.length === 0 ? 'node' : `-S node ${NODE_FLAGS.join(' ')}`}\n` +
      "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  plugins: [NODE_ONLY_PG, esModulesOfFpTs, ...LAZY_REQUIRES],
  logLevel: 'warning',
})

// `pnpm start` and a container run the file itself, so that its first line gives node its flags.
chmodSync(`${dist}bin/animal-store.mjs`, 0o755)
