import { request, type OutgoingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { expectConforms } from '../support/checked-fetch.js'

export type RawRequest = {
  readonly method: string
  readonly path: string
  /** Sent exactly as given: node:http adds no Content-Type, and uses chunked encoding when no length is set. */
  readonly headers?: OutgoingHttpHeaders
  /** Written one after the other. */
  readonly chunks?: ReadonlyArray<string | Buffer>
}

/**
 * Sends what fetch cannot express, such as a body without Content-Type or a chunked body, and
 * returns the answer as a fetch Response, once it is checked against the OpenAPI document.
 */
export const rawRequest = async (url: string, request: RawRequest): Promise<Response> =>
  expectConforms(
    new URL(url).origin,
    { method: request.method, target: request.path },
    await send(url, request),
  )

const send = (url: string, { method, path, headers = {}, chunks = [] }: RawRequest): Promise<Response> =>
  new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers, agent: false }, (res) => {
      const body: Array<Buffer> = []
      res.on('data', (chunk: Buffer) => body.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers))
          for (const v of [value ?? []].flat()) responseHeaders.append(name, v)
        resolve(new Response(Buffer.concat(body), { status: res.statusCode ?? 0, headers: responseHeaders }))
      })
    })
    req.on('error', reject)
    for (const chunk of chunks) req.write(chunk)
    req.end()
  })

const HEAD_END = Buffer.from('\r\n\r\n')

// The answer once the head and Content-Length bytes of body have arrived, else undefined.
const parseResponse = (bytes: Buffer): Response | undefined => {
  const end = bytes.indexOf(HEAD_END)
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const headers = new Headers()
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
  }
  const body = bytes.subarray(end + HEAD_END.length)
  const length = Number(headers.get('content-length') ?? 0)
  if (body.length < length) return undefined
  return new Response(body.subarray(0, length), { status: Number(statusLine.split(' ')[1]), headers })
}

/**
 * Writes raw bytes to the server over a fresh TCP connection and reads the first answer, checked
 * against the OpenAPI document for the request line at the start of `bytes`.
 */
/** As rawExchange, unchecked: for a listener that serves no OpenAPI document (METRICS_PORT's). */
export const rawExchangeUnchecked = (url: string, bytes: Buffer | string): Promise<Response> =>
  exchange(url, bytes)

export const rawExchange = async (url: string, bytes: Buffer | string): Promise<Response> => {
  const [method, target = '/'] = Buffer.from(bytes).toString('latin1').split('\r\n')[0]?.split(' ') ?? []
  return expectConforms(new URL(url).origin, { method, target }, await exchange(url, bytes))
}

const exchange = (url: string, bytes: Buffer | string): Promise<Response> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    let received = Buffer.alloc(0)
    socket.on('error', reject)
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const response = parseResponse(received)
      if (response === undefined) return
      socket.destroy()
      resolve(response)
    })
    socket.on('close', () =>
      reject(new Error(`connection closed before a full answer: ${received.toString()}`)),
    )
    socket.write(bytes)
  })
