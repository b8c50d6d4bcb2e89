import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/** Where the proxy sends connections. */
export type ProxyTarget = { readonly host: string; readonly port: number }

/**
 * What a change of primary does to connections. `cut`: every connection to the old node is reset
 * (HAProxy's on-marked-down shutdown-sessions). `keep`: they stay as they are, the demoted node
 * reachable and read-only (HAProxy's default; a DNS flip). `late`: for `ms` after the change, NEW
 * connections still go to the old node, as from a client holding a cached DNS answer; `stale`: the same
 * until `over()` says so (the test ends it once the old node is back as a read-only standby).
 */
export type FollowMode =
  | { readonly kind: 'cut' }
  | { readonly kind: 'keep' }
  | { readonly kind: 'late'; readonly ms: number }
  | { readonly kind: 'stale'; readonly over: () => boolean }

export type FollowPrimaryOptions<T extends ProxyTarget> = {
  readonly mode: FollowMode
  /** The node that takes writes now; undefined when none does, and the proxy stays where it is. */
  readonly locate: () => Promise<T | undefined>
  /** How often `locate` is asked; 100 ms unless given. */
  readonly checkIntervalMs?: number
}

/** One change of target: when the proxy noticed it, and from which node to which. */
export type Switch<T> = { readonly at: number; readonly from: T; readonly to: T }

const same = (a: ProxyTarget, b: ProxyTarget) => a.host === b.host && a.port === b.port

/**
 * One TCP address on 127.0.0.1 that follows the primary: it asks `locate` every interval and
 * sends each new connection to the node found last, treating existing ones as `mode` says.
 */
export const startFollowPrimaryProxy = async <T extends ProxyTarget>(o: FollowPrimaryOptions<T>) => {
  const interval = o.checkIntervalMs ?? 100
  let current: T | undefined
  const deadline = Date.now() + 30_000
  while ((current = await o.locate()) === undefined) {
    if (Date.now() > deadline) throw new Error('the follow-primary proxy found no node that takes writes')
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
  let target: T = current
  let late: { readonly to: T; readonly until: number } | undefined
  const switches: Array<Switch<T>> = []
  // Both sockets of every open connection, by the node it reaches.
  const open = new Map<Socket, T>()
  const server = createServer((client) => {
    if (late !== undefined && o.mode.kind === 'stale' && o.mode.over()) late = { ...late, until: Date.now() }
    const to = late !== undefined && Date.now() < late.until ? late.to : target
    const upstream = connect({ host: to.host, port: to.port })
    for (const socket of [client, upstream]) {
      open.set(socket, to)
      socket.on('close', () => open.delete(socket))
      // Either end failing or closing takes the other with it, as a dropped path would.
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const follow = (to: T) => {
    const from = target
    target = to
    switches.push({ at: Date.now(), from, to })
    if (o.mode.kind === 'late') late = { to: from, until: Date.now() + o.mode.ms }
    if (o.mode.kind === 'stale') late = { to: from, until: Number.POSITIVE_INFINITY }
    if (o.mode.kind === 'cut') for (const [socket, node] of open) if (same(node, from)) socket.destroy()
  }
  let closed = false
  let timer: NodeJS.Timeout | undefined
  const check = async () => {
    const found = await o.locate().catch(() => undefined)
    if (closed) return
    if (found !== undefined && !same(found, target)) follow(found)
    timer = setTimeout(() => void check(), interval)
  }
  timer = setTimeout(() => void check(), interval)

  return {
    host: '127.0.0.1',
    port,
    /** The node new connections go to now (in `late` mode, after the lag). */
    target: (): T => target,
    /** When new connections last stopped going to the old node (`late`, `stale`), else undefined. */
    lateUntil: (): number | undefined => late?.until,
    /** Every change of target so far. */
    switches: (): ReadonlyArray<Switch<T>> => switches,
    /** How many connections pass through it now. */
    connections: (): number => open.size / 2,
    /** Stops following, resets every connection and stops listening. */
    close: async () => {
      closed = true
      clearTimeout(timer)
      for (const socket of open.keys()) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A follow-primary proxy, as startFollowPrimaryProxy returns it. */
export type FollowPrimaryProxy<T extends ProxyTarget> = Awaited<ReturnType<typeof startFollowPrimaryProxy<T>>>
