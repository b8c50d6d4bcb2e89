import type LightMyRequest from 'light-my-request'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { decodeContent } from './decode-content.js'
import { importOptionalPeer } from './optional-peer.js'
import { requestHeaders } from './request-headers.js'

/** What fetchOf serves: a Koa app (as `createHttpApp` makes), or any node:http request listener. */
export type Servable = { readonly callback: () => RequestListener } | RequestListener

/** How fetchOf's requests look to the app. */
export type FetchOfOptions = {
  /** The peer address of every request (the client address of log lines and limits); `127.0.0.1` unless given. */
  readonly remoteAddress?: string | undefined
}

/** Where a path given alone (`/v1/pets`) is resolved; fetch itself would refuse it. */
export const FETCH_OF_ORIGIN = 'http://localhost'

// Statuses whose answer has no body (the Response constructor refuses one for these).
const NULL_BODY = new Set([204, 205, 304])

// An optional peer (only tests load this entry): a production install need not download it.
const { default: inject } = await importOptionalPeer(
  'light-my-request',
  '^6.6.0',
  () => import('light-my-request'),
)

type Answer = LightMyRequest.Response

// light-my-request's stand-in for the connection has a peer address and nothing else. A connection the
// app closes after its answer (linger.ts, past its bounds) is closed as node would: the answer with it.
// For an https URL it says it is encrypted, as a TLS socket does, so that Koa's `ctx.protocol` is https.
const standInConnection = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
  const socket = req.socket as { destroy?: () => void; destroyed?: boolean; encrypted?: boolean }
  if (url.protocol === 'https:') socket.encrypted = true
  socket.destroyed = false
  socket.destroy = () => {
    socket.destroyed = true
    res.destroy()
  }
}

const toResponse = (answer: Answer, method: string, url: string): Response => {
  // An interim answer (1xx) as the final one: a Response cannot carry it (its constructor's RangeError says
  // nothing of the app).
  if (answer.statusCode < 200)
    throw new TypeError(
      `fetchOf: the app answered ${answer.statusCode}, a 1xx status, which no Response can carry`,
    )
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers))
    for (const one of Array.isArray(value) ? value : [value])
      if (one !== undefined) headers.append(name, String(one))
  const empty = method === 'HEAD' || NULL_BODY.has(answer.statusCode)
  const response = new Response(
    empty ? null : decodeContent(answer.rawPayload, headers.get('content-encoding')),
    {
      status: answer.statusCode,
      statusText: answer.statusMessage,
      headers,
    },
  )
  Object.defineProperty(response, 'url', { value: url })
  return response
}

/**
 * A `fetch` that serves each request with `servable` in this process: no socket, no port. It sends the header
 * lines Node's fetch sends, and answers a real Response (status, every header line, body decoded as fetch
 * decodes it; none for HEAD); an aborted `signal` rejects with its reason, and the app then sees its client
 * gone. Redirects are never followed. Koa composes its middleware here: `use` everything before.
 */
export const fetchOf = (servable: Servable, options: FetchOfOptions = {}): typeof globalThis.fetch => {
  const handle = typeof servable === 'function' ? servable : servable.callback()
  const remoteAddress = options.remoteAddress ?? '127.0.0.1'
  return async (input, init) => {
    const request = new Request(typeof input === 'string' ? new URL(input, FETCH_OF_ORIGIN) : input, init)
    const { signal } = request
    signal.throwIfAborted()
    const url = new URL(request.url)
    const payload = request.body === null ? undefined : Buffer.from(await request.arrayBuffer())
    signal.throwIfAborted()
    let answering: ServerResponse | undefined
    const dispatch: RequestListener = (req, res) => {
      answering = res
      standInConnection(req, res, url)
      handle(req, res)
    }
    // The client goes away as over a closed connection: its answer is destroyed.
    let leave = () => {}
    const left = new Promise<never>((_, reject) => {
      leave = () => {
        answering?.destroy()
        reject(signal.reason)
      }
    })
    signal.addEventListener('abort', leave, { once: true })
    try {
      const answer = await Promise.race([
        inject(dispatch, {
          // Fetch sends any method; light-my-request's check knows only its own list.
          validate: false,
          method: request.method as 'GET',
          url: url.href,
          headers: requestHeaders(request, url, payload?.length),
          remoteAddress,
          ...(payload === undefined ? {} : { payload }),
        }),
        left,
      ])
      return toResponse(answer, request.method, request.url)
    } finally {
      signal.removeEventListener('abort', leave)
    }
  }
}
