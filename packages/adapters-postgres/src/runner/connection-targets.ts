import type pg from 'pg'
import { tlsSettings, type BadValue } from './tls-settings.js'

/** The session a connection must find, in libpq's words (its parameter target_session_attrs). */
export type TargetSessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby'

/** One server to try: a host name, an IP address (IPv6 without brackets) or a socket directory, and a port. */
export type HostPort = { readonly host: string; readonly port: number }

/** A libpq connection URI, read: the servers in order, how to choose one, and pg's settings for all of them. */
export type ConnectionTargets = {
  readonly hosts: ReadonlyArray<HostPort>
  readonly targetSessionAttrs: TargetSessionAttrs
  readonly loadBalanceHosts: 'disable' | 'random'
  /** libpq's connect_timeout: the most one host may take, in ms; absent, hosts take as long as they take. */
  readonly connectTimeoutMs?: number
  /** pg's settings for every host (user, password, database, ssl, application_name, options…), no host or port. */
  readonly base: pg.ClientConfig
}

/** How to read a URI: the target when it names none (by its number of hosts), and the name messages give it. */
export type TargetOptions = {
  readonly defaultTargetSessionAttrs: TargetSessionAttrs | ((hosts: number) => TargetSessionAttrs)
  readonly label?: string | undefined
}

const SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const
const words = (text: string) => new Set(text.split(' '))
const TEXT = words('application_name fallback_application_name options client_encoding')
const READ_HERE = words(
  'host port dbname user password connect_timeout target_session_attrs load_balance_hosts ' +
    'sslmode ssl sslrootcert sslcert sslkey sslnegotiation',
)
// Known to libpq (uselibpqcompat: to pg), refused by name: pg cannot honour them.
const NOT_SUPPORTED = words(
  'hostaddr passfile service servicefile require_auth channel_binding replication keepalives keepalives_idle ' +
    'keepalives_interval keepalives_count tcp_user_timeout gssencmode krbsrvname gsslib gssdelegation ' +
    'requirepeer requiressl sslcompression sslpassword sslcertmode sslcrl sslcrldir sslsni sslkeylogfile ' +
    'ssl_min_protocol_version ssl_max_protocol_version min_protocol_version max_protocol_version ' +
    'scram_client_key scram_server_key oauth_issuer oauth_client_id oauth_client_secret oauth_scope uselibpqcompat',
)

type Fail = (message: string) => Error

/** A connection string refused: `label` (the variable's name) and the `problem`, never the password. */
export class ConnectionStringError extends Error {
  override readonly name = 'ConnectionStringError'
  constructor(
    readonly label: string,
    readonly problem: string,
  ) {
    super(`${label}: ${problem}`)
  }
}
type Decode = (text: string, what: string) => string

/**
 * Reads `postgres://user:pw@n1:5432,[::1]:5433/app?target_session_attrs=read-write&…` (or `postgres:///app?host=n1,n2`)
 * as libpq does; throws an Error naming any parameter it cannot honour, never quoting the password. The password
 * is in `base`, as pg wants it: log describeTargets, not the object.
 */
export const parseConnectionTargets = (uri: string, options: TargetOptions): ConnectionTargets => {
  const fail: Fail = (message) => new ConnectionStringError(options.label ?? 'DATABASE_URL', message)
  // Hand-written, not pg-connection-string: that parser (WHATWG URL under it) takes one host only, and this
  // package does not depend on it. indexOf, slice and split only: linear in the input.
  const scheme = ['postgresql://', 'postgres://'].find((prefix) => uri.startsWith(prefix))
  if (scheme === undefined) throw fail('must start with postgres:// or postgresql://')
  const [beforeQuery, query = ''] = cutAt(uri.slice(scheme.length), '?')
  const [authority, path = ''] = cutAt(beforeQuery, '/')
  // The last '@' ends the user info, as in WHATWG URL (pg today): an unencoded '@' in a password still works.
  const at = authority.lastIndexOf('@')
  const [userText, passwordText] = at < 0 ? [] : cutAt(authority.slice(0, at), ':')
  if (at < 0 && path.includes('@')) throw fail('"@" after the hosts: write "/" in a password as %2F')
  const decode: Decode = (text, what) => {
    let value: string
    try {
      value = decodeURIComponent(text)
    } catch {
      throw fail(`${what} is not valid percent-encoding`)
    }
    if (value.includes('\0')) throw fail(`${what} holds a NUL byte`)
    return value
  }
  const fromUri = uriHosts(authority.slice(at + 1), decode, fail)
  const params = new Map<string, string>()
  const hint = ' (write "?" in a password as %3F)'
  query.split('&').forEach((item, index) => {
    if (item === '') return
    const [rawKey, rawValue] = cutAt(item, '=')
    if (rawValue === undefined) throw fail(`query item ${index + 1} has no "="${hint}`)
    const key = decode(rawKey, `query item ${index + 1}`)
    if (NOT_SUPPORTED.has(key)) throw fail(`parameter "${key}" is not supported here`)
    // A name with '@' or '/' is likelier the end of a password with an unencoded '?': not quoted.
    const named = key.includes('@') || key.includes('/') ? `in query item ${index + 1}${hint}` : `"${key}"`
    if (!TEXT.has(key) && !READ_HERE.has(key)) throw fail(`unknown parameter ${named}`)
    if (params.has(key)) throw fail(`parameter "${key}" is given twice`)
    // A '+' is a space in a query value, as pg and URLSearchParams write it (libpq keeps it: %2B is a '+').
    params.set(key, decode(rawValue.replaceAll('+', ' '), `parameter "${key}"`))
  })
  const once = (key: string, raw: string | undefined, what: string): string | undefined => {
    const inUri = raw === undefined || raw === '' ? undefined : decode(raw, what)
    if (inUri !== undefined && params.has(key)) throw fail(`${what} is given twice (and ${key}=)`)
    return params.get(key) ?? inUri
  }
  const badValue: BadValue = (key, allowed) =>
    fail(`parameter ${key} has a bad value "${params.get(key)}" (${allowed.join(', ')})`)
  const pick = <T extends string>(key: string, allowed: ReadonlyArray<T>): T | undefined => {
    const value = params.get(key) as T | undefined
    if (value !== undefined && !allowed.includes(value)) throw badValue(key, allowed)
    return value
  }
  const timeout = params.get('connect_timeout')
  // libpq: zero or negative is no limit; libpq 18 dropped the 2 s floor older ones put under 1. Past 2^31 ms,
  // node's timers fire at once.
  if (timeout !== undefined && !(isInteger(timeout) && Number(timeout) <= 2_147_483)) {
    throw badValue('connect_timeout', ['whole seconds, at most 2147483'])
  }
  const connectTimeoutMs = timeout === undefined || Number(timeout) <= 0 ? undefined : Number(timeout) * 1000
  const user = once('user', userText, 'the user name')
  const password = once('password', passwordText, 'the password')
  const database = once('dbname', path, 'the database name')
  const who = { ...(user && { user }), ...(password && { password }), ...(database && { database }) }
  const text = Object.fromEntries([...params].filter(([key]) => TEXT.has(key)))
  const hosts = hostList(fromUri, params, fail)
  const byDefault = options.defaultTargetSessionAttrs
  return {
    hosts,
    targetSessionAttrs:
      pick('target_session_attrs', SESSION_ATTRS) ??
      (typeof byDefault === 'function' ? byDefault(hosts.length) : byDefault),
    loadBalanceHosts: pick('load_balance_hosts', ['disable', 'random']) ?? 'disable',
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    base: { ...who, ...text, ...tlsSettings(params, pick, badValue) },
  }
}

// Before the first `separator`, and after it (undefined when there is none).
const cutAt = (text: string, separator: string): [string, string | undefined] => {
  const index = text.indexOf(separator)
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)]
}

const isInteger = (text: string): boolean => {
  const digits = text.startsWith('-') ? text.slice(1) : text
  return digits.length > 0 && digits.length <= 9 && [...digits].every((c) => c >= '0' && c <= '9')
}

// The most hosts (or ports) a string may list; libpq sets none. Counted before the list is built: 250,000
// hosts took 1.6 s, most of it the collector's, and far fewer make a cluster.
const MAX_HOSTS = 256
const splitList = (text: string, what: string, fail: Fail): Array<string> => {
  for (let items = 1, comma = text.indexOf(','); comma >= 0; comma = text.indexOf(',', comma + 1))
    if (++items > MAX_HOSTS) throw fail(`lists more than ${MAX_HOSTS} ${what}`)
  return text.split(',')
}

// The URI's `name:port` and `[IPv6]:port` items; their ports are checked before the query is read (portNumber).
const uriHosts = (text: string, decode: Decode, fail: Fail) =>
  splitList(text, 'hosts', fail).map((item, index) => {
    let [host, port = ''] = cutAt(item, ':')
    if (item.startsWith('[')) {
      const [inside, after] = cutAt(item.slice(1), ']')
      if (after === undefined) throw fail(`host ${index + 1} misses the "]" closing its IPv6 address`)
      if (after !== '' && !after.startsWith(':')) throw fail(`host ${index + 1} has text after its "]"`)
      ;[host, port] = [inside, after.slice(1)]
    }
    port = decode(port, `port ${index + 1}`)
    portNumber(port, index, fail)
    return { host: decode(host, `host ${index + 1}`), port }
  })

// The URI's items, or ?host= and ?port= (one port serves every host), as libpq reads them.
type Items = ReturnType<typeof uriHosts>
const hostList = (fromUri: Items, params: Map<string, string>, fail: Fail): Array<HostPort> => {
  const [hostParam, portParam] = [params.get('host'), params.get('port')]
  if (hostParam !== undefined && fromUri.some((h) => h.host)) throw fail('the hosts are given twice')
  if (portParam !== undefined && fromUri.some((h) => h.port)) throw fail('the ports are given twice')
  const names = hostParam === undefined ? fromUri.map((h) => h.host) : splitList(hostParam, 'hosts', fail)
  const ports = portParam === undefined ? fromUri.map((h) => h.port) : splitList(portParam, 'ports', fail)
  if (ports.length !== 1 && ports.length !== names.length)
    throw fail(`${names.length} hosts, ${ports.length} ports`)
  return names.map((host, index) => ({
    host: host === '' ? 'localhost' : host,
    port: portNumber(ports[ports.length === 1 ? 0 : index] ?? '', index, fail),
  }))
}

// Never quotes the text: with an unencoded '/' or '?' in a password, part of it lands here.
const portNumber = (text: string, index: number, fail: Fail): number => {
  if (text === '') return 5432
  const port = isInteger(text) && !text.startsWith('-') ? Number(text) : 0
  if (port < 1 || port > 65535) throw fail(`the port of host ${index + 1} is not a number from 1 to 65535`)
  return port
}

// A host as messages and logs write it, for the users of this entry (apps/api's one-line failures).
export { describeTarget, formatHostPort } from './describe-targets.js'
