import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

// How a dual-stack socket shows an IPv4 peer.
const MAPPED = '::ffff:'

const plain = (address: string): string =>
  address.startsWith(MAPPED) && address.includes('.') ? address.slice(MAPPED.length) : address

/**
 * The address a request came from: the connection's peer, as the server sees it. With
 * `trustedProxies` (the number of proxies in front of the service, each appending to
 * `X-Forwarded-For`), the address the farthest trusted proxy saw instead: the `trustedProxies`-th
 * entry from the right. Entries left of it are whatever the client wrote, so they are never read;
 * an entry that is not an IP address leaves the peer's. Read it before any await: a socket that
 * has closed no longer knows its peer.
 */
export const clientAddressOf = (req: IncomingMessage, trustedProxies: number): string => {
  const peer = plain(req.socket?.remoteAddress ?? '')
  if (trustedProxies < 1) return peer
  // node:http joins repeated X-Forwarded-For headers with ", ", in order.
  const header = req.headers['x-forwarded-for']
  if (typeof header !== 'string') return peer
  const hops = header.split(',')
  const hop = hops[Math.max(0, hops.length - trustedProxies)]?.trim() ?? ''
  return isIP(hop) === 0 ? peer : plain(hop)
}

/**
 * What a limit per client counts by: the address itself for IPv4, and the /64 network for IPv6,
 * which one subscriber usually holds whole (so a client cannot change address to start afresh).
 */
export const addressBucketOf = (address: string): string => {
  if (!address.includes(':')) return address
  const bare = address.split('%')[0]!.toLowerCase()
  const [head = '', tail] = bare.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups =
    tail === undefined
      ? left
      : [...left, ...new Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}
