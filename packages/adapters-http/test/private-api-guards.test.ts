import Koa, { type Context } from 'koa'
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { connect, createServer as createNetServer, Socket, type AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LeanKoa } from '../src/lean-koa.js'
import { headStartOf, watchHeadStarts } from '../src/connection/head-starts.js'
import { readRefusedHead } from '../src/connection/refused-head.js'

// Guards of what the adapter's hand-made pieces assume of Koa and node beyond their documented
// APIs (ARCHITECTURE.md, "Made by hand, on purpose"): each fails naming the version that broke it.

const KOA = `koa ${(createRequire(import.meta.url)('koa/package.json') as { version: string }).version}`
const NODE = `node ${process.version}`
const LEAN = 'lean-koa.ts overrides it — re-measure LeanKoa against plain Koa (commit 85dc143) or delete it'

type Middleware = (ctx: Context) => Promise<void>
type HandleRequest = (this: Koa, ctx: Context, middleware: Middleware) => Promise<void>
const koaHandleRequest = (): unknown =>
  (Koa.prototype as unknown as { handleRequest?: unknown }).handleRequest

// A request and its response without a socket: enough for Koa to make a context.
const exchangeInProcess = () => {
  const req = new IncomingMessage(new Socket())
  req.method = 'GET'
  req.url = '/'
  return { req, res: new ServerResponse(req) }
}
// What a test opened, closed after it.
const opened: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of opened.splice(0)) await close()
})
const listeners = (res: ServerResponse) =>
  res.eventNames().reduce((sum, name) => sum + res.listenerCount(name), 0)

// Waits until two refusals are in, or 2 s: the guards' own expectations then say what node did instead.
const refusedTwiceOr2s = async (count: () => number): Promise<void> => {
  for (const giveUpAt = Date.now() + 2_000; count() < 2 && Date.now() < giveUpAt;)
    await new Promise((resolve) => setTimeout(resolve, 10))
}

// Serves two GETs pipelined in one packet on `server`, waits for both 200s, and closes it.
const twoPipelinedGets = async (server: Server): Promise<void> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2)),
  )
  socket.on('error', () => {})
  let text = ''
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()))
  await expect.poll(() => (text.match(/HTTP\/1\.1 200/g) ?? []).length).toBe(2)
  socket.destroy()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

describe(`Koa's private handleRequest, which lean-koa.ts overrides (${KOA})`, () => {
  it('is a method of Koa.prototype taking the context and the composed middleware', () => {
    expect(
      typeof koaHandleRequest(),
      `${KOA}: Koa.prototype.handleRequest is no longer a function; ${LEAN}`,
    ).toBe('function')
    expect(
      (koaHandleRequest() as HandleRequest).length,
      `${KOA}: Koa.prototype.handleRequest no longer takes (ctx, fnMiddleware); ${LEAN}`,
    ).toBe(2)
  })

  it("is what Koa's callback calls, on the subclass, with a context and the middleware", async () => {
    const calls: Array<{ ctx: Context; middleware: Middleware }> = []
    class Spy extends Koa {
      handleRequest(ctx: Context, middleware: Middleware): Promise<void> {
        calls.push({ ctx, middleware })
        return Promise.resolve()
      }
    }
    const app = new Spy()
    let ran = false
    app.use(() => void (ran = true))
    const { req, res } = exchangeInProcess()
    await app.callback()(req, res)
    const call = calls[0]
    expect(call?.ctx.req, `${KOA}: app.callback() no longer calls this.handleRequest(ctx, …); ${LEAN}`).toBe(
      req,
    )
    await call?.middleware(call.ctx)
    expect(ran, `${KOA}: handleRequest's second argument no longer runs the middleware; ${LEAN}`).toBe(true)
  })

  it('starts every response at 404 before the middleware runs (LeanKoa restores the status after)', async () => {
    const { req, res } = exchangeInProcess()
    res.statusCode = 299
    let seen = 0
    const app = new Koa()
    const ctx = app.createContext(req, res) as unknown as Context
    await (koaHandleRequest() as HandleRequest).call(app, ctx, async (c) => {
      seen = c.res.statusCode
      c.respond = false
    })
    expect(seen, `${KOA}: handleRequest no longer starts the response at 404; ${LEAN}`).toBe(404)
  })

  it('watches every response with on-finished, the cost LeanKoa saves', () => {
    const plain = exchangeInProcess()
    const before = listeners(plain.res)
    const app = new Koa()
    void (koaHandleRequest() as HandleRequest).call(
      app,
      app.createContext(plain.req, plain.res) as unknown as Context,
      () => new Promise<void>(() => {}),
    )
    expect(
      listeners(plain.res),
      `${KOA}: handleRequest no longer puts on-finished on each response: LeanKoa saves nothing — delete lean-koa.ts`,
    ).toBeGreaterThan(before)

    const lean = exchangeInProcess()
    const leanApp = new LeanKoa()
    void leanApp.handleRequest(
      leanApp.createContext(lean.req, lean.res) as unknown as Context,
      () => new Promise<void>(() => {}),
    )
    expect(listeners(lean.res)).toBe(0)
  })
})

describe(`node's http internals read by read-body-bytes.ts, answer-client-error.ts and cut-requests.ts (${NODE})`, () => {
  type Seen = {
    sync: boolean
    complete: boolean
    flowing: boolean | null
    body: unknown
    httpMessage: boolean
    detached: Promise<unknown>
  }
  let server: Server
  let seen: Promise<Seen>
  let port: number

  beforeAll(async () => {
    seen = new Promise((resolve) => {
      server = createServer((req, res) => {
        const sync = req.complete
        const socket = req.socket as { _httpMessage?: unknown }
        const httpMessage = socket._httpMessage === res
        // Node's own 'finish' listener, added before the request is handed over, runs before this one.
        const detached = new Promise((done) => res.on('finish', () => done(socket._httpMessage)))
        setImmediate(() => {
          resolve({
            sync,
            complete: req.complete,
            flowing: req.readableFlowing,
            body: req.read(),
            httpMessage,
            detached,
          })
          res.end()
        })
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
    const body = '{"name":"Rex","categoryId":1}'
    const socket = connect(port, '127.0.0.1', () =>
      socket.end(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
    )
    socket.on('error', () => {})
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('has a body sent with its headers whole at the next turn, taken by one read()', async () => {
    const { sync, complete, flowing, body } = await seen
    const hint =
      'read-body-bytes.ts takes it then — re-measure (ARCHITECTURE.md, "Made by hand, on purpose", "body reader")'
    expect(typeof sync, `${NODE}: IncomingMessage.complete is no longer a boolean; ${hint}`).toBe('boolean')
    expect(
      complete,
      `${NODE}: a body sent with its headers is no longer complete at the next turn; ${hint}`,
    ).toBe(true)
    expect(flowing, `${NODE}: an unread request is no longer paused (readableFlowing null); ${hint}`).toBe(
      null,
    )
    expect(
      Buffer.isBuffer(body) ? body.toString() : body,
      `${NODE}: req.read() no longer hands over the whole body at the next turn; ${hint}`,
    ).toBe('{"name":"Rex","categoryId":1}')
  })

  it("keeps the response under way on the socket's _httpMessage, until it has finished", async () => {
    expect(
      (await seen).httpMessage,
      `${NODE}: socket._httpMessage is no longer the response under way; answer-client-error.ts reads it ` +
        "(as node's own clientError default does) to leave an answer already begun alone — read it another way",
    ).toBe(true)
    const { detached } = await seen
    expect(
      await detached,
      `${NODE}: socket._httpMessage is no longer cleared once its response has finished; cut-requests.ts ` +
        'counts the requests in flight on a connection by it — tell them apart another way',
    ).toBeNull()
  })
})

describe(`node's clientError for a method it does not know, read by refused-request.ts (${NODE})`, () => {
  type Refusal = { code?: string; rawPacket?: unknown; bytesParsed?: unknown }
  const HEAD = 'FOO /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\n\r\n'
  const HINT = 'refused-request.ts answers such a request by reading its head from the refusal'

  // The refusals node reports for HEAD, then for a chunk sent after it on the same connection (refused again:
  // strangers.test.ts holds that they do not write over the app's answer).
  const refusalsOf = async (): Promise<Array<Refusal>> => {
    const refusals: Array<Refusal> = []
    const server = createServer(() => {})
    // The later chunk goes once the first is refused: two packets, however busy the machine.
    server.on('clientError', (error: Refusal) => {
      if (refusals.push(error) === 1) socket.write('body')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(HEAD))
    socket.on('error', () => {})
    await refusedTwiceOr2s(() => refusals.length)
    socket.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return refusals
  }

  it('refuses it as HPE_INVALID_METHOD, with the whole packet and where in its first word it stopped', async () => {
    const [first] = await refusalsOf()
    expect(
      first?.code,
      `${NODE}: a method outside node's list is no longer refused as HPE_INVALID_METHOD; if node now serves it, ` +
        'its name reaches the metrics as a label: map unknown methods to _OTHER where requests are observed, and ' +
        `drop the reading of refused heads (${HINT})`,
    ).toBe('HPE_INVALID_METHOD')
    expect(
      Buffer.isBuffer(first?.rawPacket) ? first.rawPacket.toString('latin1') : first?.rawPacket,
      `${NODE}: the refusal's rawPacket is no longer the packet it refused; ${HINT}`,
    ).toBe(HEAD)
    expect(
      typeof first?.bytesParsed === 'number' && first.bytesParsed < 3,
      `${NODE}: the refusal's bytesParsed (${String(first?.bytesParsed)}) no longer says where in the method ` +
        `the parser stopped; ${HINT}, where it starts`,
    ).toBe(true)
  })

  it('refuses each later packet of that connection again, handing over its bytes', async () => {
    const [, later] = await refusalsOf()
    expect(
      Buffer.isBuffer(later?.rawPacket) ? later.rawPacket.toString('latin1') : later,
      `${NODE}: node's parser no longer reports the packets that follow a refused request (clientError with each ` +
        'packet as rawPacket); refused-request.ts reads the rest of a head arriving in several packets from them, ' +
        'and linger.ts counts what a client still sends after its answer: find where those bytes go now',
    ).toBe('body')
  })
})

describe(`node's pipelining, which pipelined-in-order.ts leans on (${NODE})`, () => {
  const HINT = 'pipelined-in-order.ts serves a pipelined request when its answer gets the connection'

  it('hands a pipelined request over with a response that has no socket yet, and gives it one by a socket event', async () => {
    const seen: Array<{ socketAtRequest: boolean; socketEvent: boolean }> = []
    const server = createServer((_req, res) => {
      const entry = { socketAtRequest: res.socket !== null, socketEvent: false }
      seen.push(entry)
      const answer = () => setTimeout(() => res.end('ok'), 5)
      if (res.socket !== null) answer()
      else
        res.once('socket', () => {
          entry.socketEvent = true
          answer()
        })
    })
    await twoPipelinedGets(server)
    expect(seen[0]?.socketAtRequest, `${NODE}: a request's response no longer has its socket; ${HINT}`).toBe(
      true,
    )
    expect(
      seen[1]?.socketAtRequest,
      `${NODE}: a pipelined request's response has a socket at once: node may now serve pipelined requests in order itself — re-measure and delete pipelined-in-order.ts`,
    ).toBe(false)
    expect(
      seen[1]?.socketEvent,
      `${NODE}: a pipelined response is no longer given its socket by a 'socket' event; ${HINT}`,
    ).toBe(true)
  })
})

describe(`node's queue of pipelined answers, whose last later-refusals.ts makes say Connection: close (${NODE})`, () => {
  it('writes a queued response whose shouldKeepAlive was set false before it had the socket as the last', async () => {
    const server = createServer((_req, res) => {
      // request-turns.ts keeps a response handed over without its socket; later-refusals.ts sets this on it.
      if (res.socket === null) res.shouldKeepAlive = false
      setTimeout(() => res.end('ok'), 5)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2)),
    )
    socket.on('error', () => {})
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString().toLowerCase()))
    await new Promise((resolve) => socket.on('close', resolve))
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(
      text.match(/\r\nconnection: [a-z-]+\r\n/g),
      `${NODE}: a queued (pipelined) response no longer writes its Connection from a shouldKeepAlive set before ` +
        'it had the socket, or node no longer closes the connection after it; later-refusals.ts closes after the ' +
        'last request handed over that way: find how node now decides the last answer of a connection',
    ).toEqual(['\r\nconnection: keep-alive\r\n', '\r\nconnection: close\r\n'])
  })
})

describe(`node's close of a connection after its last answer, which later-refusals.ts takes over (${NODE})`, () => {
  it('closes it with the socket\'s destroySoon, once an answer saying "Connection: close" has finished', async () => {
    let destroyedSoon = false
    const server = createServer((_req, res) => {
      res.shouldKeepAlive = false
      res.end('ok')
    })
    server.on('connection', (socket: Socket) => {
      const own = socket.destroySoon.bind(socket)
      socket.destroySoon = () => {
        destroyedSoon = true
        own()
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
    )
    socket.on('error', () => {})
    socket.resume()
    await new Promise((resolve) => socket.on('close', resolve))
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(
      destroyedSoon,
      `${NODE}: node no longer closes a connection after its last answer with socket.destroySoon(); ` +
        'later-refusals.ts replaces it on a connection whose client still sends bytes node refused, so that it ' +
        'closes after them (closeAfterLinger): find where node closes it now',
    ).toBe(true)
  })
})

describe(`node's close after an answer to Expect: 100-continue without 100 Continue, which continue-on-read.ts lifts (${NODE})`, () => {
  // What node says of the connection after such an answer, its `_expect_continue` as node set it, or false.
  const connectionAfter = async (lift: boolean) => {
    let flag: unknown
    const server = createServer(() => {})
    server.on('checkContinue', (_req: IncomingMessage, res: ServerResponse) => {
      const response = res as ServerResponse & { _expect_continue?: unknown }
      flag = response._expect_continue
      if (lift) response._expect_continue = false
      res.end('ok')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const answer = await new Promise<string>((resolve) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n'),
      )
      socket.on('error', () => {})
      socket.on('data', (data: Buffer) => {
        resolve(data.toString('latin1'))
        socket.destroy()
      })
    })
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return { flag, connection: /\r\nConnection: (\S+)\r\n/.exec(answer)?.[1] }
  }

  it("closes it by the response's _expect_continue, which a false keeps open", async () => {
    const hint =
      'continue-on-read.ts sets it false where a request has no content, so that node keeps its connection: find what node reads now'
    expect(await connectionAfter(false), `${NODE}: ${hint}`).toEqual({ flag: true, connection: 'close' })
    expect(await connectionAfter(true), `${NODE}: ${hint}`).toEqual({ flag: true, connection: 'keep-alive' })
  })
})

describe(`node's clientError for HTTP/2's connection preface, read by http2-preface.ts (${NODE})`, () => {
  it('refuses it as HPE_PAUSED_H2_UPGRADE where it ends, and each later packet with the packet', async () => {
    const refusals: Array<{ code?: string; rawPacket?: unknown; bytesParsed?: unknown }> = []
    const server = createServer(() => {})
    // The later packet goes once the first is refused: two packets, however busy the machine.
    server.on('clientError', (error: (typeof refusals)[number]) => {
      if (refusals.push(error) === 1) socket.write('more frames')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
      socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nframes'),
    )
    socket.on('error', () => {})
    await refusedTwiceOr2s(() => refusals.length)
    socket.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const seen = refusals.map(({ code, rawPacket, bytesParsed }) => ({
      code,
      packet: Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1') : rawPacket,
      bytesParsed,
    }))
    expect(
      seen.slice(0, 2).map(({ code, packet }) => ({ code, packet })),
      `${NODE}: HTTP/2's preface, or what follows it, is no longer refused as http2-preface.ts reads it ` +
        '(HPE_PAUSED_H2_UPGRADE, each packet whole); it answers an HTTP/2 client with HTTP_1_1_REQUIRED',
    ).toEqual([
      { code: 'HPE_PAUSED_H2_UPGRADE', packet: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nframes' },
      { code: 'HPE_PAUSED_H2_UPGRADE', packet: 'more frames' },
    ])
    expect(
      seen[0]?.bytesParsed,
      `${NODE}: the preface's refusal no longer says where in its packet the preface ended (bytesParsed); ` +
        'http2-preface.ts reads the frames after it from there',
    ).toBe(24)
  })
})

describe(`node's hand-over of a connection between pipelined answers, which later-refusals.ts waits for (${NODE})`, () => {
  it("gives the next waiting answer the connection before the 'close' of the one before", async () => {
    const answers: Array<ServerResponse> = []
    let heldAtClose: unknown = 'no close heard'
    const server = createServer((req, res) => {
      answers.push(res)
      if (answers.length === 1)
        res.once('close', () => {
          heldAtClose = (req.socket as Socket & { _httpMessage?: unknown })._httpMessage
        })
      const answer = () => setTimeout(() => res.end('ok'), 5)
      if (res.socket !== null) answer()
      else res.once('socket', answer)
    })
    await twoPipelinedGets(server)
    expect(
      heldAtClose === answers[1],
      `${NODE}: at the 'close' of an answer, socket._httpMessage is no longer the pipelined answer after it ` +
        "(node assigned it the connection first); later-refusals.ts's next() would answer refused bytes while " +
        'that answer is still to come: wait for it another way',
    ).toBe(true)
  })
})

describe(`node's http pieces that answer-and-close.ts and refused-request.ts put together by hand (${NODE})`, () => {
  const HINT =
    'answer-and-close.ts answers a CONNECT or a refused request on a connection node no longer serves'

  it('writes a ServerResponse made by hand on the socket it is assigned, and detaches it', async () => {
    const seen = { attached: false, detached: false, text: '' }
    const raw = createNetServer((socket) => {
      const res = new ServerResponse(new IncomingMessage(socket))
      res.shouldKeepAlive = false
      res.assignSocket(socket)
      seen.attached = res.socket === socket && (socket as { _httpMessage?: unknown })._httpMessage === res
      res.on('finish', () => {
        res.detachSocket(socket)
        seen.detached = res.socket === null
        socket.end()
      })
      res.end('ok')
    })
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve))
    const client = connect((raw.address() as AddressInfo).port, '127.0.0.1')
    opened.push(() => new Promise<void>((done) => (client.destroy(), raw.close(() => done()))))
    client.on('error', () => {})
    client.on('data', (chunk: Buffer) => (seen.text += chunk.toString()))
    await expect
      .poll(() => seen.attached, {
        timeout: 2_000,
        message: `${NODE}: res.assignSocket(socket) no longer makes it the response's socket; ${HINT}`,
      })
      .toBe(true)
    await expect
      .poll(() => seen.text, {
        timeout: 2_000,
        message: `${NODE}: the answer no longer reaches the socket; ${HINT}`,
      })
      .toMatch(/^HTTP\/1\.1 200 OK\r\n(?:[^\r]*\r\n)*Connection: close\r\n(?:[^\r]*\r\n)*\r\nok$/)
    expect(seen.detached, `${NODE}: res.detachSocket(socket) no longer lets go of it; ${HINT}`).toBe(true)
  })

  it('keeps the server on each connection it accepts, where refused-request.ts reads its headersTimeout', async () => {
    const server = createServer(() => {})
    server.headersTimeout = 1234
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
    client.on('error', () => {})
    const socket = await accepted
    client.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(
      (socket as Socket & { server?: { headersTimeout?: unknown } }).server?.headersTimeout,
      `${NODE}: an accepted socket's server is no longer its http.Server; refused-request.ts waits 60 s, not the ` +
        "server's headersTimeout, for the rest of a refused head: read the limit another way",
    ).toBe(1234)
  })
})

describe(`node's parser of a connection, which head-starts.ts hears as a message begins and after each packet (${NODE})`, () => {
  const HINT =
    'head-starts.ts no longer keeps the start of a head that comes in several packets, and a HEAD refused in a ' +
    'later packet gets a body (strangers.test.ts): find where such a head began another way'
  // Sends each packet of `packets` on a connection of its own, once node has read the one before, and says after
  // each what headStartOf says of it (latin1, null or undefined).
  const startsAfter = async (packets: ReadonlyArray<string>) => {
    const server = createServer((_, res) => res.end('ok'))
    const sockets: Array<Socket> = []
    server.on('connection', (socket: Socket) => {
      sockets.push(socket)
      watchHeadStarts(socket)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    opened.push(() => (server.closeAllConnections(), new Promise<void>((done) => server.close(() => done()))))
    const said: Array<string | null | undefined> = []
    for (const round of [1, 2]) {
      // A second connection: node hands it the parser the first one freed (its slots cleaned).
      const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
      client.on('error', () => {})
      await expect.poll(() => sockets.length, { timeout: 2_000 }).toBe(round)
      const socket = sockets[round - 1]!
      for (const packet of packets) {
        const before = socket.bytesRead
        client.write(packet)
        await expect.poll(() => socket.bytesRead, { timeout: 2_000 }).toBe(before + packet.length)
        await new Promise((resolve) => setImmediate(resolve))
        const start = headStartOf(socket)
        said.push(start === undefined || start === null ? start : start.toString('latin1'))
      }
      client.destroy()
      await expect.poll(() => socket.destroyed, { timeout: 2_000 }).toBe(true)
    }
    return said
  }

  it('calls the slot kOnMessageBegin names as each message begins, and kOnExecute after each packet', async () => {
    const packets = [
      '\r\nHEAD /a HT',
      'TP/1.1\r\nX: y\r\n',
      'Host: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nHEAD /c HTTP/1.1\r\n',
      'Host: x\r\nContent-Length: 2\r\n\r\nabHEAD /d',
    ]
    // Whole packets are kept up to the end of the request line.
    const once = ['HEAD /a HT', 'HEAD /a HTTP/1.1\r\nX: y\r\n', 'HEAD /c HTTP/1.1\r\n', null]
    expect(
      await startsAfter(packets),
      `${NODE}: what head-starts.ts kept of a head under way after each packet is not its start (twice: a parser ` +
        `freed and given to a second connection); ${HINT}`,
    ).toEqual([...once, ...once])
  })
})

describe(`node's headers of a request, which refused-head.ts makes as node would (${NODE})`, () => {
  // Every header node keeps the first line of (refused-head.ts's FIRST_ONLY), some it joins, and Cookie.
  // Content-Length, also first-only, is sent once: node's parser refuses two that differ.
  const NAMES = [
    ...['Age', 'Authorization', 'Content-Type', 'ETag', 'Expires', 'From', 'Host'],
    ...['If-Modified-Since', 'If-Unmodified-Since', 'Last-Modified', 'Location', 'Max-Forwards'],
    ...['Proxy-Authorization', 'Referer', 'Retry-After', 'Server', 'User-Agent'],
    ...['Cookie', 'Accept', 'Idempotency-Key', 'X-Request-Id', 'Connection', 'X-Custom', 'Date', 'Vary'],
  ]
  // Each name twice, in two cases, with white space around the second value.
  const lines = [
    'Content-Length: 0',
    ...NAMES.flatMap((name, i) => [`${name}: first${i}`, `${name.toLowerCase()}:  second${i} `]),
  ]
  const headOf = (method: string) => `${method} /v1/pets HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`

  it('keeps the first line of the same headers, and joins the others as node does', async () => {
    const server = createServer((req, res) => {
      seen.push(req.headers)
      res.end()
    })
    const seen: Array<IncomingMessage['headers']> = []
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () =>
      socket.write(headOf('GET')),
    )
    socket.on('error', () => {})
    socket.resume()
    await expect.poll(() => seen.length).toBe(1)
    socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(
      { ...readRefusedHead(Buffer.from(headOf('FOO'), 'latin1'))?.headers },
      `${NODE}: node now keeps or joins a header sent on two lines otherwise than refused-head.ts does (its ` +
        "FIRST_ONLY list copies node's matchKnownFields in lib/_http_incoming.js): a request of a method node " +
        'does not know would be read otherwise than any other; copy the new rule',
    ).toEqual({ ...seen[0] })
  })
})
