import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { baselineConfig } from './baseline-config.js'
import {
  createKeyCheck,
  decodeId,
  decodeListing,
  decodeNewPet,
  deprecationHeaders,
  encodePet,
  encodePets,
  errorBody,
  HARDENING,
  pastSunset,
  readJsonBody,
  requestIdOf,
  toPage,
} from './contract.js'
import { storeFromEnv } from './pet-store.js'

// The limit of Node for the service's work: node:http, no framework, the contract by hand.
const config = baselineConfig(process.env)
const store = storeFromEnv(process.env)
const isKnownKey = createKeyCheck(config.apiKeys)
const base = config.publicBaseUrl
const getPetHeaders = deprecationHeaders(base)

const send = (res: ServerResponse, status: number, json: string): void => {
  res.statusCode = status
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(json))
  res.end(json)
}

const fail = (res: ServerResponse, status: number, code: string, message: string): void =>
  send(res, status, errorBody(status, code, message))

const listPets = async (res: ServerResponse, search: string) => {
  const listing = decodeListing(search)
  if (typeof listing === 'string') return fail(res, 400, 'validation_failed', `Invalid request: ${listing}.`)
  const rows = await store.list({ ...listing, limit: listing.limit + 1 })
  const page = toPage(base, listing, rows)
  if (page.link !== undefined) res.setHeader('Link', page.link)
  send(res, 200, encodePets(page.pets))
}

const createPet = async (req: IncomingMessage, res: ServerResponse) => {
  const read = await readJsonBody(req)
  if ('status' in read) return fail(res, read.status, read.code, read.message)
  const pet = decodeNewPet(read.body)
  if (typeof pet === 'string') return fail(res, 400, 'validation_failed', pet)
  const added = await store.add(pet)
  res.setHeader('Location', `${base}/pets/${added.id}`)
  send(res, 201, encodePet(added))
}

const getPet = async (res: ServerResponse, segment: string) => {
  for (const [name, value] of Object.entries(getPetHeaders)) res.setHeader(name, value)
  const id = decodeId(segment)
  if (id === undefined) return fail(res, 400, 'validation_failed', 'Invalid request: petId is invalid.')
  if (pastSunset()) return fail(res, 410, 'gone', 'The getPet operation was removed.')
  const pet = await store.get(id)
  if (pet === undefined) return fail(res, 404, 'not_found', `No pet has id ${id}.`)
  send(res, 200, encodePet(pet))
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  const header = req.headers['x-request-id']
  res.setHeader('X-Request-Id', requestIdOf(typeof header === 'string' ? header : undefined))
  for (const [name, value] of HARDENING) res.setHeader(name, value)
  const url = req.url ?? '/'
  const mark = url.indexOf('?')
  const path = mark === -1 ? url : url.slice(0, mark)
  const search = mark === -1 ? '' : url.slice(mark + 1)
  if (path === '/healthz') return send(res, 200, '{"status":"ok"}')
  if (path !== '/v1' && !path.startsWith('/v1/'))
    return fail(res, 404, 'not_found', 'No resource is at this path.')
  if (!isKnownKey(req.headers.authorization)) {
    res.setHeader('WWW-Authenticate', 'Bearer realm="animal-store"')
    return fail(res, 401, 'unauthorized', 'A valid API key is required.')
  }
  if (path === '/v1/pets') {
    if (req.method === 'GET') return listPets(res, search)
    if (req.method === 'POST') return createPet(req, res)
    res.setHeader('Allow', 'GET, HEAD, POST')
    return fail(res, 405, 'method_not_allowed', 'This path allows only GET, HEAD, POST.')
  }
  const segment = path.startsWith('/v1/pets/') ? path.slice('/v1/pets/'.length) : undefined
  if (segment !== undefined && segment !== '' && !segment.includes('/')) {
    if (req.method === 'GET') return getPet(res, segment)
    res.setHeader('Allow', 'GET, HEAD')
    return fail(res, 405, 'method_not_allowed', 'This path allows only GET, HEAD.')
  }
  fail(res, 404, 'not_found', 'No resource is at this path.')
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => {
    if (!res.headersSent) fail(res, 503, 'unavailable', 'The pet store cannot be reached right now.')
    else res.destroy()
  })
})
server.keepAliveTimeout = 5_000
server.listen(config.port, config.host)
process.on('SIGTERM', () => {
  server.close()
  server.closeIdleConnections()
  void store.close().finally(() => process.exit(0))
})
