import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request as the stub received it. */
export type SeenRequest = {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

/** Answers one request; `'drop'` closes the connection without an answer, `'hang'` never answers. */
export type StubAnswer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown }
  | 'drop'
  | 'hang'

/**
 * A server on 127.0.0.1 that gives the queued answers in order, one per request, and records
 * every request. When the queue is empty it answers 500, which the tests never expect.
 */
export const startStubServer = async (answers: ReadonlyArray<StubAnswer>) => {
  const queue = [...answers]
  const seen: Array<SeenRequest> = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      const answer = queue.shift() ?? {
        status: 500,
        body: { code: 'internal_error', message: 'stub ran out of answers', status: 500 },
      }
      if (answer === 'drop') return void req.socket.destroy()
      if (answer === 'hang') return
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers })
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** An Error body of the contract. */
export const errorBody = (status: number, code: string, message = `a ${code} error`) => ({
  code,
  message,
  status,
})
