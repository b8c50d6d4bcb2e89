// What hostile request bodies and queries within the limits (a 64 KiB body, a 4 KiB URL) cost the server,
// beside a typical listing and create, and beside JSON.parse (or URLSearchParams) of the same bytes in
// this process. Not a test: it asserts nothing and no test runner picks it up. Build first, then run it,
// against one build or several side by side (each server in a child process, so that its CPU time is
// its own; each shape sent to each in turn, in alternating order from one round to the next):
//   node packages/adapters-http/bench/hostile-bodies.mjs
//   node packages/adapters-http/bench/hostile-bodies.mjs --builds=before=/tmp/before/dist,after=packages/adapters-http/dist
// A build outside this package must find its dependencies (@pets/domain, koa, …) from where it lies: copy
// it under packages/adapters-http/node_modules/.cache/, say. It prints, per shape, the server's CPU time
// per request of each build (the least of the rounds: a busy machine only ever adds time), the parse in
// this process, and whether every build answered alike. Options: --rounds=5, --requests=30 per round,
// --only=text (shapes whose name holds it, the typical ones always).
import { Buffer } from 'node:buffer'
import { Agent, request } from 'node:http'
import { resolve } from 'node:path'
import { URLSearchParams } from 'node:url'
import { forkMemoryApp, serveMemoryApp } from './serve-memory-app.mjs'

const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const KEY = 'k'.repeat(40)
const BODY_LIMIT = 64 * 1024
const URL_LIMIT = 4096

// `start`, then `unit(0)`, `unit(1)`, … for as long as the whole stays within `limit` bytes, then `end`.
const fill = (start, unit, end, limit = BODY_LIMIT) => {
  const parts = [start]
  let bytes = Buffer.byteLength(start) + Buffer.byteLength(end)
  for (let i = 0; ; i++) {
    const part = unit(i)
    bytes += Buffer.byteLength(part)
    if (bytes > limit) break
    parts.push(part)
  }
  return parts.join('') + end
}
const short = (i) => i.toString(36)
const post = (body) => ({ method: 'POST', path: '/v1/pets', body })
const get = (path) => ({ method: 'GET', path })

const SHAPES = {
  'GET list (typical)': get('/v1/pets?limit=1'),
  'create (typical)': post('{"name":"Rex","categoryId":1}'),
  '5,000 members': post(
    `{"name":"x","categoryId":1${Array.from({ length: 5000 }, (_, i) => `,"m${i}":0`).join('')}}`,
  ),
  'short members, as many as fit': post(fill('{"name":"x","categoryId":1', (i) => `,"${short(i)}":0`, '}')),
  'members whose values are {}': post(fill('{"name":"x","categoryId":1', (i) => `,"${short(i)}":{}`, '}')),
  'members named with escapes': post(
    fill('{"name":"x","categoryId":1', (i) => `,"\\u0061${short(i)}":0`, '}'),
  ),
  'members, a backslash in the name': post(
    fill('{"name":"x\\n","categoryId":1', (i) => `,"${short(i)}":0`, '}'),
  ),
  '~900 members of 64-character names': post(
    fill('{"name":"x","categoryId":1', (i) => `,"${'x'.repeat(60)}-${short(i)}":0`, '}'),
  ),
  'one member name of 64 KiB': post(fill('{"name":"x","categoryId":1,"', () => 'a', '":0}')),
  'a name of 64 KiB': post(fill('{"categoryId":1,"name":"', () => 'a', '"}')),
  'a name of \\u0000 escapes': post(fill('{"categoryId":1,"name":"', () => '\\u0000', '"}')),
  'an unknown string of 64 KiB': post(fill('{"name":"x","categoryId":1,"x":"', () => 'a', '"}')),
  'an unknown string of \\u0000 escapes': post(
    fill('{"name":"x","categoryId":1,"x":"', () => '\\u0000', '"}'),
  ),
  'a categoryId of 60 KB of digits': post(fill('{"name":"x","categoryId":', () => '1', '}')),
  'an unknown number of 60 KB of digits': post(fill('{"name":"x","categoryId":1,"x":', () => '1', '}')),
  'members nested 32 deep': post(
    fill('{"name":"x","categoryId":1', (i) => `,"${short(i)}":${'['.repeat(31)}${']'.repeat(31)}`, '}'),
  ),
  'an array of 10,000 in a member': post(
    `{"name":"x","categoryId":1,"tags":[${Array(10000).fill(0).join(',')}]}`,
  ),
  'an array of 0s, as many as fit': post(fill('{"name":"x","categoryId":1,"tags":[0', () => ',0', ']}')),
  'an array of {}, a backslash': post(fill('{"name":"x\\n","categoryId":1,"tags":[{}', () => ',{}', ']}')),
  'an array as the name': post(fill('{"categoryId":1,"name":[0', () => ',0', ']}')),
  'a top-level array': post(fill('[0', () => ',0', ']')),
  'one member given again and again': post(fill('{"name":"x","categoryId":1', () => ',"a":0', '}')),
  'GET ?a&a&… (4 KiB URL)': get(fill('/v1/pets?a', () => '&a', '', URL_LIMIT)),
  'GET ?0&1&… (4 KiB URL)': get(fill('/v1/pets?', (i) => `${i === 0 ? '' : '&'}${short(i)}`, '', URL_LIMIT)),
  'GET ?limit=1&limit=1&… (4 KiB URL)': get(fill('/v1/pets?limit=1', () => '&limit=1', '', URL_LIMIT)),
  'GET an 8 KB query (over 4 KiB)': get(fill('/v1/pets?a', () => '&a', '', 8192)),
  'GET /v1/pets/1?a&a&… (4 KiB URL)': get(fill('/v1/pets/1?a', () => '&a', '', URL_LIMIT)),
  'POST no JSON, 15 KB query ?a&a&…': { ...post('{'), path: fill('/v1/pets?a', () => '&a', '', 15_000) },
  'POST no JSON, 15 KB query ?0&1&…': {
    ...post('{'),
    path: fill('/v1/pets?', (i) => `${i === 0 ? '' : '&'}${short(i)}`, '', 15_000),
  },
}

const startServer = async (name, dist) => {
  const { port, cpuUs, stop } = await forkMemoryApp(import.meta.url, dist)
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  const send = ({ method, path, body }) =>
    new Promise((ok, fail) => {
      const headers = { Authorization: `Bearer ${KEY}` }
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json'
        headers['Content-Length'] = Buffer.byteLength(body)
      }
      const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () => ok({ status: res.statusCode, text: Buffer.concat(chunks).toString() }))
      })
      req.on('error', fail)
      req.end(body)
    })
  // The server's CPU µs per request over `n` requests of a shape, eight at a time.
  const cpuPerRequest = async (shape, n) => {
    const before = await cpuUs()
    let sent = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent++ < n) await send(shape)
      }),
    )
    return ((await cpuUs()) - before) / n
  }
  return { name, send, cpuPerRequest, stop: () => (stop(), agent.destroy()) }
}

// The least CPU µs of seven runs of `work` in this process.
const leastUs = (work) => {
  const runs = []
  for (let run = 0; run < 7; run++) {
    const started = process.cpuUsage()
    for (let i = 0; i < 100; i++) work()
    const { user, system } = process.cpuUsage(started)
    runs.push((user + system) / 100)
  }
  return Math.min(...runs)
}
const parseUs = ({ body, path }) =>
  body === '{'
    ? Number.NaN
    : body !== undefined
      ? leastUs(() => JSON.parse(body))
      : leastUs(() => [...new URLSearchParams(path.slice(path.indexOf('?') + 1))])

const compare = async () => {
  const rounds = Number(option('rounds', 5))
  const requests = Number(option('requests', 30))
  const only = option('only', '')
  const builds = option('builds', `this=${new URL('../dist', import.meta.url).pathname}`)
    .split(',')
    .map((pair) => pair.split('='))
  const servers = []
  for (const [name, dist] of builds) servers.push(await startServer(name, resolve(dist)))
  const shapes = Object.entries(SHAPES).filter(([what]) => what.includes(only) || what.includes('(typical)'))
  const answers = new Map()
  for (const [what, shape] of shapes) {
    answers.set(what, await Promise.all(servers.map((server) => server.send(shape))))
    for (const server of servers) await server.cpuPerRequest(shape, 10)
  }
  const least = new Map()
  for (let round = 0; round < rounds; round++)
    for (const [what, shape] of shapes)
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const key = `${what}\n${server.name}`
        least.set(key, Math.min(least.get(key) ?? Infinity, await server.cpuPerRequest(shape, requests)))
      }
  for (const server of servers) server.stop()
  const names = servers.map((server) => server.name)
  console.log(`| shape | bytes | status | ${names.map((n) => `${n} µs`).join(' | ')} | parse µs | alike |`)
  console.log(`|---|---|---|${names.map(() => '---|').join('')}---|---|`)
  for (const [what, shape] of shapes) {
    const [first, ...others] = answers.get(what)
    const bytes =
      shape.body === undefined || shape.body === '{' ? shape.path.length : Buffer.byteLength(shape.body)
    const cells = names.map((name) => least.get(`${what}\n${name}`).toFixed(0))
    const alike = others.every((answer) => answer.status === first.status && answer.text === first.text)
    console.log(
      `| ${what} | ${bytes} | ${first.status} | ${cells.join(' | ')} | ${parseUs(shape).toFixed(0)} | ${alike ? 'yes' : 'no'} |`,
    )
  }
}

if (process.argv[2] === 'serve') await serveMemoryApp({ dist: process.argv[3], key: KEY })
else await compare()
