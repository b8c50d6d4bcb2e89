// What the bundle requires on first use instead of at start: CommonJS dependencies that require,
// when they load, a module that the service uses rather late or never (prom-client's Pushgateway
// and the tls it loads, OpenTelemetry for exemplars, pino's transports and worker_threads, the two
// mime-db databases with their maps, which Koa's `ctx.type` reads but `respond` never does). Each
// edit turns one `require` into the same `require` made when the value is first used, so the
// service does exactly what it did, only the module's loading moves. Measured in memory mode
// (bench/start-up.mjs, CPU until the first 200): 135 → 112 ms, bare Koa 93. A file that no
// longer holds the text an edit expects fails the build, and so does a build that bundles no file the
// edit is for (the dependency moved or renamed it, and the edit would be skipped without a word): review
// the edit against its new version.
import { readFileSync } from 'node:fs'

const UNMATCHED = 'no file matches '

const rewrite = (name, file, edits) => ({
  name,
  setup(bundler) {
    let edited = false
    bundler.onLoad({ filter: file }, ({ path }) => {
      let source = readFileSync(path, 'utf8')
      for (const [from, to] of edits) {
        if (!source.includes(from)) throw new Error(`${path} no longer holds "${from}": review ${name}`)
        source = source.replace(from, to)
      }
      edited = true
      return { contents: source, loader: 'js' }
    })
    // Said only of a build that failed on nothing else (the other edits' own such errors aside): one cut
    // short may not have reached the file.
    bundler.onEnd(({ errors }) =>
      edited || errors.some(({ text }) => !text.startsWith(UNMATCHED))
        ? undefined
        : { errors: [{ text: `${UNMATCHED}${file}: review ${name}` }] },
    )
  },
})

// `exports.X = require(M)` as a getter that requires M when X is first read.
const lazyExport = (property, module) => [
  `exports.${property} = require('${module}');`,
  `Object.defineProperty(exports, '${property}', { enumerable: true, get: () => require('${module}') });`,
]
// `var mime = require('mime-types')` as an object whose every property is read from mime-types.
const lazyMime = [
  "var mime = require('mime-types')",
  "var mime = new Proxy({}, { get: (_, property) => require('mime-types')[property] })",
]

export const LAZY_REQUIRES = [
  rewrite('lazy-prom-client', /[\\/]prom-client[\\/]index\.js$/, [
    lazyExport('Summary', './lib/summary'),
    lazyExport('Pushgateway', './lib/pushgateway'),
    lazyExport('AggregatorRegistry', './lib/cluster'),
  ]),
  // Read only for exemplars, which the service does not enable.
  rewrite('lazy-opentelemetry', /[\\/]prom-client[\\/]lib[\\/]metrics[\\/]processCpuTotal\.js$/, [
    [
      "const OtelApi = require('@opentelemetry/api');",
      'const OtelApi = {' +
        " get trace() { return require('@opentelemetry/api').trace }," +
        " get context() { return require('@opentelemetry/api').context } };",
    ],
  ]),
  rewrite('lazy-pino-transport', /[\\/]pino[\\/]lib[\\/]tools\.js$/, [
    ["const { isMainThread } = require('worker_threads')", ''],
    ['if (!opts.sync && isMainThread) {', "if (!opts.sync && require('worker_threads').isMainThread) {"],
    [
      "const transport = require('./transport')",
      "const transport = (options) => require('./transport')(options)",
    ],
  ]),
  rewrite('lazy-pino-transport-export', /[\\/]pino[\\/]pino\.js$/, [
    [
      "module.exports.transport = require('./lib/transport')",
      "Object.defineProperty(module.exports, 'transport', { enumerable: true, get: () => require('./lib/transport') })",
    ],
  ]),
  rewrite('lazy-mime-koa', /[\\/]koa[\\/]lib[\\/]response\.js$/, [
    [
      "const getType = require('mime-types').contentType",
      "const getType = (type) => require('mime-types').contentType(type)",
    ],
    // destroy loads zlib; Koa calls it only when a stream body is replaced or its response ends.
    ["const destroy = require('destroy')", "const destroy = (...args) => require('destroy')(...args)"],
  ]),
  rewrite('lazy-mime-type-is', /[\\/]type-is[\\/]index\.js$/, [lazyMime]),
  rewrite('lazy-mime-accepts', /[\\/]accepts[\\/]index\.js$/, [lazyMime]),
]

// pg asks at import whether it runs in a Cloudflare Worker by building a fetch Response, which loads undici
// at every PostgreSQL start (bench/RESULTS.md#cold-start-and-idle-memory); this bundle runs on Node only. A
// pg whose probe reads otherwise, or lies elsewhere, fails the build rather than being bundled with the probe.
export const NODE_ONLY_PG = rewrite('node-only-pg', /[\\/]pg[\\/]lib[\\/]stream\.js$/, [
  ['if (isCloudflareRuntime()) {', 'if (false) {'],
])
