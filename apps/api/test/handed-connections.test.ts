import type { Worker } from 'node:cluster'
import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { handedConnections } from '../src/cluster/handed-connections.js'

// A worker as the primary's cluster sees it: its process sends over IPC, hears node's internal messages, and
// stays connected until its channel ends (after every message the worker sent before it died).
const fakeWorker = () => {
  const process = Object.assign(new EventEmitter(), {
    connected: true,
    send: (_message: unknown, _handle?: unknown): boolean => true,
  })
  return { process } as unknown as Worker & { process: typeof process }
}
// A connection's handle in the primary, as node's round robin holds it.
const handle = () => {
  const state = { closed: 0 }
  return { state, close: () => void state.closed++ }
}
const newconn = (seq: number) => ({ cmd: 'NODE_CLUSTER', act: 'newconn', key: 'k', seq })
const ack = (seq: number, accepted: boolean) => ({ cmd: 'NODE_CLUSTER', ack: seq, accepted })
// A worker that connections 1 and 2 were handed to, with what handedConnections returns for it.
const handedTwo = () => {
  const worker = fakeWorker()
  const reset = handedConnections(worker)
  const [first, second] = [handle(), handle()]
  worker.process.send(newconn(1), first)
  worker.process.send(newconn(2), second)
  return { worker, reset, first, second }
}
// The worker's channel ends, every message it sent before it died read (node's 'disconnect').
const channelEnds = (worker: ReturnType<typeof fakeWorker>) => {
  worker.process.connected = false
  worker.process.emit('disconnect')
}

describe('handedConnections', () => {
  it('closes at the exit the connections handed to a worker whose channel is gone, unacknowledged', () => {
    const { worker, reset, first: taken, second: untaken } = handedTwo()
    worker.process.emit('internalMessage', ack(1, true))
    channelEnds(worker)
    expect(reset()).toBe(1)
    expect([taken.state.closed, untaken.state.closed]).toEqual([0, 1])
  })

  // node hands a connection the worker refused (accepted: false) to another worker; a handle closed at the
  // exit, before that ack was heard, made the primary send a closed handle: EINVAL, an 'error' on the Worker
  // that nobody listens to, the primary's end.
  it('leaves to node a connection whose ack comes after the exit, closing the rest at the channel end', () => {
    const { worker, reset, first: refused, second: untaken } = handedTwo()
    // The exit is heard first; the channel still holds the worker's last messages.
    expect(reset()).toBe(2)
    worker.process.emit('internalMessage', ack(1, false))
    expect([refused.state.closed, untaken.state.closed]).toEqual([0, 0])
    channelEnds(worker)
    expect([refused.state.closed, untaken.state.closed]).toEqual([0, 1])
  })

  it('passes every message on to node, and tracks only the handovers of connections', () => {
    const worker = fakeWorker()
    const sent: Array<unknown> = []
    worker.process.send = (message: unknown) => sent.push(message) > 0
    const reset = handedConnections(worker)
    const server = handle()
    worker.process.send({ cmd: 'NODE_CLUSTER', ack: 7, errno: 0, key: 'k', seq: 3 }, server)
    worker.process.send({ metrics: true })
    worker.process.connected = false
    expect(reset()).toBe(0)
    expect(server.state.closed).toBe(0)
    expect(sent).toHaveLength(2)
  })
})
