import type { ConnectionTargets, HostPort } from './connection-targets.js'

/** `n1:5432`, `[::1]:5434`, `/run/postgresql:5432`: a host as messages and logs write it. */
export const formatHostPort = ({ host, port }: HostPort): string =>
  host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`

/** Where a connection goes, as messages name it: `user@host:port,…/database`; never the password. */
export const describeTarget = ({ base, hosts }: Pick<ConnectionTargets, 'base' | 'hosts'>): string =>
  `${base.user === undefined ? '' : `${base.user}@`}${hosts.map(formatHostPort).join(',')}/${base.database ?? ''}`

/** One line for a log: the user, the hosts, the database and the rules; never the password or a key. */
export const describeTargets = (targets: ConnectionTargets): string => {
  const { base, connectTimeoutMs } = targets
  const unverified = typeof base.ssl === 'object' && base.ssl.rejectUnauthorized === false
  const rules = [
    `target_session_attrs=${targets.targetSessionAttrs}`,
    `load_balance_hosts=${targets.loadBalanceHosts}`,
    ...(connectTimeoutMs === undefined ? [] : [`connect_timeout=${connectTimeoutMs / 1000}s`]),
    `tls=${base.ssl === undefined ? 'unset' : !base.ssl ? 'off' : unverified ? 'no-verify' : 'verify'}`,
  ]
  return `${describeTarget(targets)} ${rules.join(' ')}`
}
