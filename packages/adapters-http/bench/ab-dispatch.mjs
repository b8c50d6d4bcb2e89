// The dispatcher (src/routes/dispatch.ts) against @koa/router's match and compose, on today's code: side A is
// a copy of this package's dist whose pets-api.js routes with a @koa/router Router (prefix, strict, sensitive;
// the routes named by operation id; admission, the deprecation headers and the rate limit, as each route's
// first middleware, as commit 78413e4 had it; 404 or 405 with Allow from `ctx.matched`), side B this dist.
// Everything else is the same file. Not a test: it asserts nothing and no test runner picks it up. Build first:
//   pnpm --filter @pets/adapters-http build && node packages/adapters-http/bench/ab-dispatch.mjs
// The copy goes to dist/.koa-router/ (so that its imports resolve from this package; the build removes it).
// Options: those of wrk-ab.mjs (--rounds=6, --seconds=4, --connections=16, --kinds=list 20,create,pages, --steady=1).
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { forkMemoryApp, serveMemoryApp } from './serve-memory-app.mjs'
import { compareSides } from './wrk-ab.mjs'

const KEY = 'k'.repeat(40)
const DIST = fileURLToPath(new URL('../dist', import.meta.url))
const VARIANT = join(DIST, '.koa-router')

// The dispatch compiled once, replaced by a Router set up in its place.
const SETUP = 'const match = compileRoutes(prefix, ROUTES, (operationId) => handlers[operationId]);'
const ROUTER_SETUP = `
    const router = new Router({ prefix, strict: true, sensitive: true });
    // Once authenticated, as the dispatch does: the operation's headers, then the rate limit.
    const admitted = (ctx, operationId) => {
        const headers = operationId === undefined ? undefined : alwaysSent.get(operationId);
        if (headers !== undefined) ctx.set(headers);
        return rateLimiter === undefined || admitWithinRateLimit(rateLimiter, ctx, ctx.state.apiKey.keyId);
    };
    for (const { operationId, method, path } of ROUTES) {
        const template = prefix + path;
        const names = [...path.matchAll(/\\{(\\w+)\\}/g)].map((found) => found[1]);
        const handle = handlers[operationId];
        router[method](operationId, path.replace(/\\{(\\w+)\\}/g, ':$1'), (ctx, next) => (admitted(ctx, operationId) ? next() : undefined), (ctx) => {
            ctx.state.route = template;
            ctx.state.operation = operationId;
            return withRequestSpan(ctx, handle, ctx, names.map((name) => ctx.params[name] ?? ''));
        });
    }
    const ours = new Set(router.stack);
    const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
    const notRouted = (ctx) => {
        const allow = [...new Set((ctx.matched ?? []).filter((layer) => ours.has(layer)).flatMap((layer) => layer.methods))]
            .sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
        return allow.length === 0 ? NOT_FOUND : { _tag: 'MethodNotAllowed', allow };
    };
    const routes = router.routes();`
// The request's part, from the match to the handler's end.
const SERVE_FROM = 'const matched = match(ctx.path);'
const SERVE_TO = 'await withRequestSpan(ctx, endpoint.handle, ctx, matched.params);'
const ROUTER_SERVE =
  'await routes(ctx, async () => (admitted(ctx, undefined) ? sendProblem(ctx, notRouted(ctx)) : undefined));'

const makeVariant = () => {
  rmSync(VARIANT, { recursive: true, force: true })
  // Entry by entry: node copies no folder into itself.
  for (const entry of readdirSync(DIST))
    if (join(DIST, entry) !== VARIANT) cpSync(join(DIST, entry), join(VARIANT, entry), { recursive: true })
  const file = join(VARIANT, 'pets-api.js')
  const source = readFileSync(file, 'utf8')
  const from = source.indexOf(SERVE_FROM)
  const to = source.indexOf(SERVE_TO)
  if (!source.includes(SETUP) || from < 0 || to < from)
    throw new Error(`${file} no longer holds the dispatch this lab replaces: review ab-dispatch.mjs`)
  const routed =
    `import Router from '@koa/router';\n` +
    source.slice(0, from).replace(SETUP, ROUTER_SETUP) +
    ROUTER_SERVE +
    source.slice(to + SERVE_TO.length)
  writeFileSync(file, routed)
}

const compare = async () => {
  makeVariant()
  const labels = { A: `${VARIANT} (@koa/router)`, B: `${DIST} (dispatch.ts)` }
  const servers = {
    A: await forkMemoryApp(import.meta.url, VARIANT),
    B: await forkMemoryApp(import.meta.url, DIST),
  }
  await compareSides({ labels, servers, key: KEY })
}

if (process.argv[2] === 'serve') await serveMemoryApp({ dist: process.argv[3], key: KEY, seeded: 100 })
else await compare()
