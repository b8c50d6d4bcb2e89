import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { addressBucketOf, clientAddressOf } from '../src/index.js'

const request = (remoteAddress: string | undefined, forwardedFor?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage

describe('clientAddressOf', () => {
  it('is the peer of the connection, an IPv4 peer of a dual-stack socket without its ::ffff:', () => {
    expect(clientAddressOf(request('::ffff:192.0.2.7'), 0)).toBe('192.0.2.7')
    expect(clientAddressOf(request('2001:db8::1'), 0)).toBe('2001:db8::1')
    expect(clientAddressOf(request(undefined), 0)).toBe('')
  })

  it('ignores X-Forwarded-For unless proxies are trusted: a client may write anything there', () => {
    expect(clientAddressOf(request('192.0.2.7', '203.0.113.1'), 0)).toBe('192.0.2.7')
  })

  it('reads, with n trusted proxies, the n-th entry from the right, never one the client wrote', () => {
    const chain = 'spoofed, 203.0.113.1, 198.51.100.2'
    expect(clientAddressOf(request('10.0.0.1', chain), 1)).toBe('198.51.100.2')
    expect(clientAddressOf(request('10.0.0.1', chain), 2)).toBe('203.0.113.1')
    // More proxies trusted than entries: the leftmost, which the first proxy wrote.
    expect(clientAddressOf(request('10.0.0.1', '203.0.113.1'), 3)).toBe('203.0.113.1')
    // An entry that is no address leaves the peer's.
    expect(clientAddressOf(request('10.0.0.1', chain), 3)).toBe('10.0.0.1')
    expect(clientAddressOf(request('10.0.0.1', '::ffff:203.0.113.1'), 1)).toBe('203.0.113.1')
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
