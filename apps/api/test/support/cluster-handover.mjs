// Run under plain node by private-api-guards.test.ts: a primary of one worker (round robin, as run-primary.ts
// forks them) that records node's internal cluster messages about one connection as handed-connections.ts reads
// them: what the primary sends the worker with a handle (through the worker's ChildProcess#send), what it hears
// back (the ChildProcess's 'internalMessage' event), and whether node closed its copy of the connection at the
// worker's answer. Prints them as one JSON line on stdout, then ends.
import cluster from 'node:cluster'
import { createServer, request } from 'node:http'
import { setTimeout } from 'node:timers'

if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR
  const worker = cluster.fork()
  const sent = []
  const heard = []
  const child = worker.process
  const send = child.send
  child.send = function (message, handle, ...rest) {
    if (message?.cmd === 'NODE_CLUSTER') {
      const entry = {
        message,
        handle: handle === undefined || handle === null ? 'none' : typeof handle.close,
      }
      if (entry.handle === 'function') {
        const close = handle.close
        entry.closedByNode = false
        handle.close = function (...args) {
          entry.closedByNode = true
          return close.apply(this, args)
        }
      }
      sent.push(entry)
    }
    return send.call(this, message, handle, ...rest)
  }
  child.on('internalMessage', (message) => {
    if (message?.cmd === 'NODE_CLUSTER') heard.push(message)
  })
  cluster.once('listening', (_, address) => {
    const asked = request({ host: '127.0.0.1', port: address.port, path: '/', agent: false }, (res) =>
      res.resume().on('end', () =>
        // The worker's ack comes before its answer; node's close of its copy, with it.
        setTimeout(() => {
          process.stdout.write(`${JSON.stringify({ sent, heard })}\n`)
          worker.kill()
        }, 50),
      ),
    )
    asked.on('error', (error) => {
      process.stdout.write(`${JSON.stringify({ error: error.message })}\n`)
      worker.kill()
    })
    asked.end()
  })
} else {
  createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1')
}
