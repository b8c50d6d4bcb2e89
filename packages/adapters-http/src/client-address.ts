import proxyAddr from '@fastify/proxy-addr'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

// How a dual-stack socket shows an IPv4 peer.
const MAPPED = '::ffff:'

const plain = (address: string): string =>
  address.startsWith(MAPPED) && address.includes('.') ? address.slice(MAPPED.length) : address

/**
 * The proxies whose `X-Forwarded-For` is believed: their addresses or CIDRs (`10.0.0.0/8`, or
 * proxy-addr's names `loopback`, `linklocal`, `uniquelocal`), as Express's `trust proxy` takes
 * them; or, only where the network lets no client reach the service but through them, their
 * number (the header is then believed from any peer). None (0, or an empty list): the peer.
 */
export type TrustedProxies = number | ReadonlyArray<string>

/** Finds the address a request came from; read it before any await: a closed socket forgets its peer. */
export type ClientAddressOf = (req: IncomingMessage) => string

const peerOf: ClientAddressOf = (req) => plain(req.socket?.remoteAddress ?? '')

/**
 * Compiles, once, how to find a request's client: the connection's peer, unless the peer is a
 * trusted proxy; then, going right to left through `X-Forwarded-For`, the first address that is
 * not a trusted proxy's (@fastify/proxy-addr, which Fastify uses). Entries left of it are
 * whatever the client wrote, so they are never read; an entry that is not an IP address leaves
 * the peer's. Throws a TypeError naming an entry that is not an address or CIDR.
 */
export const clientAddressFinder = (trusted: TrustedProxies = 0): ClientAddressOf => {
  if (trusted === 0 || (typeof trusted !== 'number' && trusted.length === 0)) return peerOf
  const trust =
    typeof trusted === 'number' ? (_: string, hop: number) => hop < trusted : proxyAddr.compile([...trusted])
  return (req) => {
    const found = proxyAddr(req, trust)
    return isIP(found) === 0 ? peerOf(req) : plain(found)
  }
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
