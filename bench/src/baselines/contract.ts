import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

// What every baseline does per request, written once, the way one would write it by hand for
// speed: the contract's rules (CONTRACT.md) without the service's layers.

/** Availability of a pet. */
export type Status = 'available' | 'pending' | 'sold'
/** A pet as the baselines keep it. */
export type Pet = {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: Status
}
/** A pet before the store gives it an id. */
export type NewPet = Omit<Pet, 'id'>
/** One page of a listing, asked of a store. */
export type Listing = { readonly limit: number; readonly after: number; readonly status: Status | undefined }

/** The statuses, in the order the contract gives them. */
export const STATUSES: ReadonlyArray<Status> = ['available', 'pending', 'sold']
/** The largest id: 2^53 − 1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER
/** The largest request body, 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024
const SUNSET_MS = Date.parse('2030-12-05T00:00:00Z')

/** True from the sunset of getPet on. */
export const pastSunset = (): boolean => Date.now() >= SUNSET_MS

/** The headers of every getPet response. */
export const deprecationHeaders = (base: string): Readonly<Record<string, string>> => ({
  Deprecation: '@1767225600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: `<${base}/pets>; rel="successor-version"`,
})

/** The headers every response of the service carries beside X-Request-Id. */
export const HARDENING: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Cache-Control', 'no-store'],
]

const VISIBLE = /^[\x21-\x7E]{1,128}$/

/** The caller's X-Request-Id when it is 1..128 visible ASCII characters, else a new UUID. */
export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && VISIBLE.test(header) ? header : randomUUID()

const BEARER = /^bearer +(.*)$/is

/** A check of an Authorization header against the SHA-256 digests of `keys`, in constant time. */
export const createKeyCheck = (keys: ReadonlyArray<string>) => {
  const digests = new Map<string, Buffer>()
  for (const key of keys) {
    const digest = createHash('sha256').update(key, 'utf8').digest()
    digests.set(digest.toString('hex'), digest)
  }
  return (authorization: string | undefined): boolean => {
    const key = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1]
    if (key === undefined || key === '') return false
    const digest = createHash('sha256').update(key, 'utf8').digest()
    const known = digests.get(digest.toString('hex'))
    return known !== undefined && timingSafeEqual(known, digest)
  }
}

/** The service's own encoding of a pet: exactly id, name, categoryId, status. */
export const encodePet = (pet: Pet): string =>
  `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`

/** A bare JSON array of pets. */
export const encodePets = (pets: ReadonlyArray<Pet>): string => {
  let json = '['
  for (let i = 0; i < pets.length; i++) json += (i === 0 ? '' : ',') + encodePet(pets[i]!)
  return `${json}]`
}

/** A request the contract refuses: its status, and the code and message of the Error body. */
export type Refusal = { readonly status: number; readonly code: string; readonly message: string }

const JSON_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i

/** Reads and parses a JSON request body: 415 for another type, 413 above 64 KiB, 400 if not JSON. */
export const readJsonBody = (req: IncomingMessage): Promise<{ readonly body: unknown } | Refusal> =>
  new Promise((resolve, reject) => {
    if (!JSON_TYPE.test(req.headers['content-type'] ?? ''))
      return resolve({
        status: 415,
        code: 'unsupported_media_type',
        message: 'The request body must be JSON.',
      })
    const chunks: Array<Buffer> = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > MAX_BODY_BYTES)
        return resolve({ status: 413, code: 'payload_too_large', message: 'The request body is too large.' })
      try {
        resolve({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      } catch {
        resolve({ status: 400, code: 'validation_failed', message: 'The request body is not valid JSON.' })
      }
    })
    req.on('error', reject)
  })

/** An Error body. */
export const errorBody = (status: number, code: string, message: string): string =>
  JSON.stringify({ code, message, status })

/** Reads a page of a listing (one row more than asked) and its `Link: rel="next"` header, if any. */
export const toPage = (
  base: string,
  listing: Listing,
  rows: ReadonlyArray<Pet>,
): { readonly pets: ReadonlyArray<Pet>; readonly link: string | undefined } => {
  if (rows.length <= listing.limit) return { pets: rows, link: undefined }
  const pets = rows.slice(0, listing.limit)
  const status = listing.status === undefined ? '' : `&status=${listing.status}`
  return {
    pets,
    link: `<${base}/pets?limit=${listing.limit}${status}&after=${pets[pets.length - 1]!.id}>; rel="next"`,
  }
}

const DECIMAL = /^[0-9]{1,20}$/
const decimalIn = (raw: string, min: number, max: number): number | undefined => {
  const n = DECIMAL.test(raw) ? Number(raw) : Number.NaN
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined
}

/** Decodes a pet id from its path segment, or undefined. */
export const decodeId = (raw: string): number | undefined => decimalIn(raw, 1, MAX_ID)

/** Decodes the query string of a listing, or says what is wrong with it. */
export const decodeListing = (search: string): Listing | string => {
  const seen = new Set<string>()
  let limit = 20
  let after = 0
  let status: Status | undefined
  for (const [name, value] of new URLSearchParams(search)) {
    if (seen.has(name)) return `${name} must be given at most once`
    seen.add(name)
    if (name === 'limit') {
      const n = decimalIn(value, 1, 100)
      if (n === undefined) return 'limit must be an integer from 1 to 100'
      limit = n
    } else if (name === 'after') {
      const n = decimalIn(value, 0, MAX_ID)
      if (n === undefined) return `after must be an integer from 0 to ${MAX_ID}`
      after = n
    } else if (name === 'status') {
      if (!STATUSES.includes(value as Status)) return 'status must be one of available, pending, sold'
      status = value as Status
    } else return `${name} is not a parameter of this operation`
  }
  return { limit, after, status }
}

const nameProblem = (name: unknown): string | undefined => {
  if (typeof name !== 'string') return 'must be a string'
  if (!/\S/u.test(name)) return 'must contain at least one character that is not white space'
  if (name.length > 255 && [...name].length > 255) return 'must be at most 255 characters long'
  if (name.includes('\u0000')) return 'must not contain the character U+0000'
  if (/[\uD800-\uDFFF]/u.test(name)) return 'must not contain unpaired surrogates'
  return undefined
}

/** Decodes a parsed NewPet body, or says everything that is wrong with it. */
export const decodeNewPet = (body: unknown): NewPet | string => {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'the body must be a JSON object'
  const { name, categoryId, status, ...rest } = body as Record<string, unknown>
  const issues: Array<string> = []
  const badName = nameProblem(name)
  if (badName !== undefined) issues.push(name === undefined ? 'name is required' : `name ${badName}`)
  if (!(typeof categoryId === 'number' && Number.isSafeInteger(categoryId) && categoryId >= 1))
    issues.push(
      categoryId === undefined
        ? 'categoryId is required'
        : `categoryId must be an integer from 1 to ${MAX_ID}`,
    )
  if (status !== undefined && !STATUSES.includes(status as Status))
    issues.push('status must be one of available, pending, sold')
  for (const key of Object.keys(rest)) issues.push(`${key} is not a field of a new pet`)
  if (issues.length > 0) return `Invalid request: ${issues.join('; ')}.`
  return { name: name as string, categoryId: categoryId as number, status: (status as Status) ?? 'available' }
}
