// The CPU of one /metrics page after strangers' requests: one of each method node's parser takes to each public
// route (no key needed), in process. BUILD: the dist folder of apps/api to measure (A/B), this one's unless given.
import { METHODS } from 'node:http'
import { cpuUsage } from 'node:process'
import { answered } from '../../test/support/observed-request.mjs'

const build = process.env.BUILD ?? new URL('../../dist/', import.meta.url).href
const { createServiceMetrics } = await import(
  new URL('service-metrics.js', `${build.replace(/\/?$/, '/')}`).href
)
// Every public route (the docs page's three assets among them) and none, a path no route matched.
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'].map(
  (file) => `/docs/assets/{version}/${file}`,
)
const ROUTES = ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/init.js', ...ASSETS, null]
const scrape = async (methods) => {
  const metrics = createServiceMetrics({ deprecatedOperations: [] })
  metrics.observe(answered('GET', '/healthz', 200))
  for (const method of methods)
    for (const route of ROUTES) metrics.observe(answered(method, route, route === null ? 401 : 405))
  await metrics.page()
  const ms = []
  for (let i = 0; i < 40; i++) {
    const start = cpuUsage()
    await metrics.page()
    const { user, system } = cpuUsage(start)
    ms.push((user + system) / 1000)
  }
  ms.sort((a, b) => a - b)
  const { body } = await metrics.page()
  return `${(body.length / 1024).toFixed(0)} KiB, CPU p50 ${ms[20].toFixed(2)} ms (p90 ${ms[36].toFixed(2)})`
}
console.log(`one GET:                      ${await scrape([])}`)
console.log(`${METHODS.length} methods x ${ROUTES.length} routes: ${await scrape(METHODS)}`)
