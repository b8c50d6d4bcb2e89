import { readdirSync } from 'node:fs'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { lines, startTwoWorkers } from './support/cluster-service.js'

// The descriptors a process holds open.
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length

// A connection that asks for /healthz at once, and what became of it: answered, closed unanswered, or open.
const probe = (url: string) => {
  const { port, hostname } = new URL(url)
  const socket = connect(Number(port), hostname)
  const state = { answered: false, ended: undefined as string | undefined, socket }
  socket.on('data', () => (state.answered = true))
  socket.on('error', (error: NodeJS.ErrnoException) => (state.ended ??= error.code ?? error.message))
  socket.on('close', () => (state.ended ??= 'closed'))
  socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`)
  return state
}

describe('WEB_CONCURRENCY: a connection handed to a worker that dies before it takes it', () => {
  const clusters: Array<() => Promise<void>> = []
  afterEach(async () => void (await Promise.all(clusters.splice(0).map((close) => close()))))

  it('is reset when the worker dies, not left open in the primary for ever', async () => {
    const { svc, close } = await startTwoWorkers()
    clusters.push(close)
    const primary = svc.child.pid!
    const before = fds(primary)
    const [victim] = lines(svc, 'listening').map((l) => l['pid'] as number)
    // Stopped, the worker takes nothing: node's round robin hands it one connection, then waits for its ack.
    process.kill(victim!, 'SIGSTOP')
    const probes: Array<ReturnType<typeof probe>> = []
    try {
      for (let i = 0; i < 4; i++) {
        probes.push(probe(svc.url))
        await expect.poll(() => probes.filter((p) => p.answered).length >= i).toBe(true)
      }
      // The other worker answers all but the one handed to the stopped worker.
      await expect.poll(() => probes.filter((p) => p.answered).length).toBe(3)
    } finally {
      process.kill(victim!, 'SIGKILL')
    }
    const [handed] = probes.filter((p) => !p.answered)
    // Node's primary never heard back about it: unless closed, it waits for ever (the client's own timeout).
    await expect.poll(() => handed!.ended, { timeout: 5_000 }).toBeDefined()
    expect(handed!.answered).toBe(false)
    await expect
      .poll(() => lines(svc, 'a worker died; replacing it'), { timeout: 5_000 })
      .toEqual([expect.objectContaining({ worker: victim, signal: 'SIGKILL', connectionsReset: 1 })])
    // Nothing of it stays in the primary; its replacement serves.
    await expect.poll(() => lines(svc, 'listening').length, { timeout: 20_000 }).toBe(3)
    await expect.poll(() => fds(primary), { timeout: 5_000 }).toBe(before)
    for (const p of probes) p.socket.destroy()

    // The worker that took its connections acknowledged each (node's ack heard): none is counted at its death.
    const [survivor] = lines(svc, 'listening')
      .map((l) => l['pid'] as number)
      .filter((pid) => pid !== victim)
    process.kill(survivor!, 'SIGKILL')
    await expect
      .poll(() => lines(svc, 'a worker died; replacing it').slice(1), { timeout: 5_000 })
      .toEqual([expect.objectContaining({ worker: survivor, connectionsReset: 0 })])
  }, 40_000)
})
