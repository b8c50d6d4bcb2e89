import { context } from '@opentelemetry/api'
import { Pet } from '@pets/domain'
import { HEADERS, IdempotencyKeyHeader, withoutTrailingSlashes } from '@pets/wire'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { sleepFor } from './abortable.js'
import { checkedApiKey } from './checked-api-key.js'
import type { PetsClientError, UndecodableResponse, ValidationFailed } from './client-errors.js'
import { decodeResponse, type ReadResponse } from './decode-response.js'
import { nextLinkOf, nextPageUrl } from './next-link.js'
import type { ListPetsQuery, PetsClient, PetsClientOptions, PetsPage } from './pets-client.js'
import { checkedTimeoutMs, retryBounds } from './retry-bounds.js'
import { sendRequest, type Repeatable, type Transport } from './send-request.js'
import { walkPages } from './walk-pages.js'

// The domain's codec decides what a pet is; keys the service may add later are dropped.
const PetResponse = t.exact(Pet)
const PetsResponse = t.readonlyArray(PetResponse)

const trimmedBaseUrl = (baseUrl: string): string => {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
  // fetch refuses every request to such a URL, quoting it (a NetworkFailure, retried); the API key authenticates.
  if (url !== undefined && (url.username !== '' || url.password !== ''))
    throw new TypeError('baseUrl must not hold credentials (user:password@); the URL is not shown')
  // A `?` or `#` in href, not search or hash: an empty query or fragment (`…/v1?`) is '' in both, and the
  // paths appended after it would be a query or a fragment of `…/v1`.
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || /[?#]/.test(url.href))
    throw new TypeError(`baseUrl must be an absolute http or https URL without query or fragment: ${baseUrl}`)
  return withoutTrailingSlashes(url.href)
}

// The ValidationFailed the service answers to such a key, made here; its request id is none.
const keyRefusal = (key: string): ValidationFailed | undefined => {
  const decoded = IdempotencyKeyHeader.decode(key)
  if (E.isRight(decoded)) return undefined
  const problem = decoded.left[0]?.message ?? 'is invalid'
  return {
    _tag: 'ValidationFailed',
    code: 'validation_failed',
    status: 400,
    message: `Invalid request: ${HEADERS.idempotencyKey} ${problem} (refused by the client; nothing was sent).`,
    requestId: undefined,
  }
}

const listingUrl = (baseUrl: string, { limit, status, after }: ListPetsQuery): string => {
  const params = new URLSearchParams()
  if (limit !== undefined) params.set('limit', String(limit))
  if (status !== undefined) params.set('status', status)
  if (after !== undefined) params.set('after', String(after))
  const query = params.toString()
  return `${baseUrl}/pets${query === '' ? '' : `?${query}`}`
}

/** A client of the animal store service over HTTP, with fetch. It knows nothing of the server. */
export const createPetsClient = (options: PetsClientOptions): PetsClient => {
  const baseUrl = trimmedBaseUrl(options.baseUrl)
  const authorization = `Bearer ${checkedApiKey(options.apiKey)}`
  const transport: Transport = {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    sleep: options.sleep ?? sleepFor,
    timeoutMs: checkedTimeoutMs(options.timeoutMs),
    retry: retryBounds(options.retry),
  }
  const send = (
    url: string,
    repeatable: Repeatable,
    {
      signal,
      ...init
    }: Omit<RequestInit, 'headers' | 'signal'> & {
      readonly headers?: Record<string, string>
      readonly signal: AbortSignal | undefined
    },
  ) =>
    sendRequest(
      transport,
      url,
      {
        ...init,
        headers: {
          Accept: 'application/json',
          [HEADERS.authorization]: authorization,
          ...init.headers,
        },
      },
      repeatable,
      signal,
    )

  const toPage =
    (res: ReadResponse, url: string) =>
    (pets: ReadonlyArray<Pet>): E.Either<UndecodableResponse, PetsPage> => {
      const link = nextLinkOf(res.headers.get('Link'), url)
      if (link === undefined) return E.right({ pets, next: undefined })
      const next = nextPageUrl(link, baseUrl)
      // A next link that does not move would make allPets loop for ever.
      return next === url
        ? E.left({
            _tag: 'UndecodableResponse',
            status: res.status,
            reason: 'the next link is this page',
            requestId: res.headers.get(HEADERS.requestId) ?? undefined,
          })
        : E.right({ pets, next: { href: next } })
    }

  const listPage =
    (url: string, signal: AbortSignal | undefined): TE.TaskEither<PetsClientError, PetsPage> =>
    async () => {
      const res = await send(url, 'safe', { method: 'GET', signal })
      return pipe(
        res,
        E.flatMap((r) => pipe(decodeResponse(r, 200, PetsResponse), E.flatMap(toPage(r, url)))),
      )
    }

  // A caller's page link goes where a server's next link goes: to the origin of baseUrl only, which the API
  // key is for (a stored or hand-made href to another origin is followed at baseUrl with its query).
  const pageUrl = (href: string): string => {
    if (!URL.canParse(href, `${baseUrl}/`)) throw new TypeError(`a page link must be a URL: ${href}`)
    return nextPageUrl(new URL(href, `${baseUrl}/`), baseUrl)
  }

  return {
    listPets: (query = {}, { signal } = {}) =>
      listPage('href' in query ? pageUrl(query.href) : listingUrl(baseUrl, query), signal),
    allPets: (query = {}, { signal } = {}) => {
      // The caller's context, read when allPets is called: every page's request is its child, also those
      // made after awaits, where a synchronous context manager holds nothing.
      const caller = context.active()
      return walkPages((url) => () => context.with(caller, listPage(url, signal)), listingUrl(baseUrl, query))
    },
    createPet: (pet, { safeRetries = false, idempotencyKey, signal } = {}) => {
      // A key the service would refuse: refused as it would, before fetch trims it (two keys would then be
      // one) or throws on it (a NetworkFailure with nothing sent).
      const refused = idempotencyKey === undefined ? undefined : keyRefusal(idempotencyKey)
      if (refused !== undefined) return TE.left(refused)
      const key = idempotencyKey ?? (safeRetries ? globalThis.crypto.randomUUID() : undefined)
      // As the caller gave it: a field the service does not keep gets its 400 (ValidationFailed naming it),
      // never dropped on the way (CONTRACT).
      const body = JSON.stringify(pet)
      return async () => {
        const res = await send(`${baseUrl}/pets`, key === undefined ? 'once' : 'keyed', {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            ...(key === undefined ? {} : { [HEADERS.idempotencyKey]: key }),
          },
          body,
          signal,
        })
        return pipe(
          res,
          E.flatMap((r) => decodeResponse(r, 201, PetResponse)),
        )
      }
    },
    getPet: (id, options) => async () => {
      const url = `${baseUrl}/pets/${encodeURIComponent(String(id))}`
      const res = await send(url, 'safe', { method: 'GET', signal: options?.signal })
      return pipe(
        res,
        E.flatMap((r) =>
          pipe(
            decodeResponse(r, 200, PetResponse),
            // Another pet than the one asked for is no answer to the question (a cache, a proxy gone wrong).
            E.filterOrElseW(
              (pet) => pet.id === id,
              (pet): UndecodableResponse => ({
                _tag: 'UndecodableResponse',
                status: r.status,
                reason: `pet ${id} was asked for, pet ${pet.id} came`,
                requestId: r.headers.get(HEADERS.requestId) ?? undefined,
              }),
            ),
          ),
        ),
      )
    },
  }
}
