import proxyAddr from '@fastify/proxy-addr'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

// How a dual-stack socket shows an IPv4 peer.
const MAPPED = '::ffff:'

const plain = (address: string): string =>
  address.startsWith(MAPPED) && address.includes('.') ? address.slice(MAPPED.length) : address

/**
 * The proxies whose `X-Forwarded-For` is believed: addresses or CIDRs (or proxy-addr's `loopback`, …) as
 * Express's `trust proxy` takes them, or a hop count only where no client can bypass them. 0 or []: none.
 */
export type TrustedProxies = number | ReadonlyArray<string>

/** The most proxies walked back through `X-Forwarded-For`; the entry there is taken as the client's. */
export const MAX_PROXY_HOPS = 32

/** Finds the address a request came from; read it before any await: a closed socket forgets its peer. */
export type ClientAddressOf = (req: IncomingMessage) => string

const peerOf: ClientAddressOf = (req) => plain(req.socket?.remoteAddress ?? '')

/**
 * Compiles how to find a request's client: the peer, unless it is a trusted proxy; then the rightmost
 * `X-Forwarded-For` entry that is not (the client wrote those left of it). Throws on a bad entry.
 */
export const clientAddressFinder = (trusted: TrustedProxies = 0): ClientAddressOf => {
  if (trusted === 0 || (typeof trusted !== 'number' && trusted.length === 0)) return peerOf
  const compiled =
    typeof trusted === 'number' ? (_: string, hop: number) => hop < trusted : proxyAddr.compile([...trusted])
  // No chain of proxies is this long: past it the walk stops, so that a header of thousands of trusted-looking
  // entries (from a client inside the trusted range) costs 32 checks, not thousands (3 µs each).
  const trust = (address: string, hop: number) => hop < MAX_PROXY_HOPS && compiled(address, hop)
  return (req) => {
    const found = proxyAddr(req, trust)
    return isIP(found) === 0 ? peerOf(req) : plain(found)
  }
}

/** What a per-client limit counts by: the IPv4 address, or the IPv6 /64 one subscriber usually holds. */
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
