import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { addressBucketOf, clientAddressFinder } from '../src/index.js'
import { MAX_PROXY_HOPS } from '../src/client-address.js'

const request = (remoteAddress: string | undefined, forwardedFor?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage

describe('clientAddressFinder', () => {
  const peerOnly = clientAddressFinder()

  it('is the peer of the connection, an IPv4 peer of a dual-stack socket without its ::ffff:', () => {
    expect(peerOnly(request('::ffff:192.0.2.7'))).toBe('192.0.2.7')
    expect(peerOnly(request('2001:db8::1'))).toBe('2001:db8::1')
    expect(peerOnly(request(undefined))).toBe('')
  })

  it('ignores X-Forwarded-For unless proxies are trusted: a client may write anything there', () => {
    for (const none of [0, []])
      expect(clientAddressFinder(none)(request('192.0.2.7', '203.0.113.1'))).toBe('192.0.2.7')
  })

  it('believes X-Forwarded-For only from a peer it names, going right to left past the proxies it names', () => {
    const behind = clientAddressFinder(['10.0.0.0/8', '192.0.2.10'])
    const chain = 'spoofed, 203.0.113.1, 10.1.2.3'
    // Through the balancer (10.0.0.1) and a proxy (10.1.2.3): the first address that is no proxy's.
    expect(behind(request('10.0.0.1', chain))).toBe('203.0.113.1')
    expect(behind(request('::ffff:10.0.0.1', '198.51.100.2'))).toBe('198.51.100.2')
    expect(behind(request('192.0.2.10', '198.51.100.2'))).toBe('198.51.100.2')
    // A client that reaches the service directly picks no address by writing the header.
    expect(behind(request('198.51.100.9', '203.0.113.1'))).toBe('198.51.100.9')
    expect(behind(request('2001:db8::9', '10.0.0.5, 203.0.113.1'))).toBe('2001:db8::9')
    // An entry that is no address leaves the peer's.
    expect(behind(request('10.0.0.1', 'spoofed'))).toBe('10.0.0.1')
    expect(clientAddressFinder(['loopback'])(request('127.0.0.1', '198.51.100.2'))).toBe('198.51.100.2')
  })

  it('reads, with n proxies trusted by number, the n-th entry from the right, never one the client wrote', () => {
    const chain = 'spoofed, 203.0.113.1, 198.51.100.2'
    expect(clientAddressFinder(1)(request('10.0.0.1', chain))).toBe('198.51.100.2')
    expect(clientAddressFinder(2)(request('10.0.0.1', chain))).toBe('203.0.113.1')
    // More proxies trusted than entries: the leftmost, which the first proxy wrote.
    expect(clientAddressFinder(3)(request('10.0.0.1', '203.0.113.1'))).toBe('203.0.113.1')
    // An entry that is no address leaves the peer's.
    expect(clientAddressFinder(3)(request('10.0.0.1', chain))).toBe('10.0.0.1')
    expect(clientAddressFinder(1)(request('10.0.0.1', '::ffff:203.0.113.1'))).toBe('203.0.113.1')
  })

  it(`walks back through ${MAX_PROXY_HOPS} proxies at most, so that thousands of trusted-looking entries cost no more`, () => {
    const loopback = clientAddressFinder(['loopback'])
    const chain = (proxies: number) =>
      ['198.51.100.7', ...Array<string>(proxies).fill('127.0.0.1')].join(', ')
    expect(loopback(request('127.0.0.1', chain(MAX_PROXY_HOPS - 1)))).toBe('198.51.100.7')
    // Past the bound, the entry there is the client's: no chain of real proxies is this long.
    expect(loopback(request('127.0.0.1', chain(MAX_PROXY_HOPS)))).toBe('127.0.0.1')
    expect(loopback(request('127.0.0.1', chain(3_000)))).toBe('127.0.0.1')
  })

  it('refuses, when compiled, an entry that is not an address or CIDR', () => {
    expect(() => clientAddressFinder(['10.0.0.0/8', 'proxy.internal'])).toThrow(/proxy\.internal/)
    expect(() => clientAddressFinder(['10.0.0.0/33'])).toThrow(TypeError)
  })
})

describe('addressBucketOf', () => {
  it('counts IPv4 by address and IPv6 by /64', () => {
    expect(addressBucketOf('192.0.2.7')).toBe('192.0.2.7')
    expect(addressBucketOf('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64')
    expect(addressBucketOf('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64')
    expect(addressBucketOf('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressBucketOf('::1')).toBe('0:0:0:0::/64')
    expect(addressBucketOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
  })
})
