// A server made as start-server.ts makes it (inOrder, 16 KiB heads, no limit on header lines) whose every request
// takes SLOW_MS (1000: a slow store), in process; CONNS (1000) connections each pipeline 32 requests of 15 KB
// heads behind one: the heap held HOLD_MS (5000) later. IN_ORDER: the pipelined-in-order.js to measure (A/B),
// this checkout's unless given; PORT (18507). Run with node --expose-gc.
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { setTimeout } from 'node:timers'

const module =
  process.env.IN_ORDER ?? '../../../../packages/adapters-http/dist/connection/pipelined-in-order.js'
const { inOrder } = await import(new URL(module, import.meta.url).href)
const [conns, slowMs, holdMs] = [
  process.env.CONNS ?? 1000,
  process.env.SLOW_MS ?? 1000,
  process.env.HOLD_MS ?? 5000,
]
const port = Number(process.env.PORT ?? 18507)
let closed = 0
const handle = inOrder((_req, res) => setTimeout(() => res.end('ok'), Number(slowMs)), {
  onOverflow: () => closed++,
})
const server = createServer({ maxHeaderSize: 16 * 1024 }, handle)
server.maxHeadersCount = 0
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
const pad = Array.from({ length: 133 }, (_, i) => `X-Pad-${i}: ${'x'.repeat(100)}\r\n`).join('')
const head = `GET / HTTP/1.1\r\nHost: x\r\n${pad}\r\n`
const heap = () => (globalThis.gc(), process.memoryUsage().heapUsed >> 20)
const before = heap()
const sockets = Array.from({ length: Number(conns) }, () => {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(head.repeat(33))
  return socket
})
await sleep(Number(holdMs))
console.log(`heap ${before} -> ${heap()} MiB; ${closed} of ${conns} connections closed for their pipeline`)
for (const socket of sockets) socket.destroy()
server.closeAllConnections()
server.close()
