import type { Authenticator, Clock, Storage } from '@pets/domain'

/** A typed tsyringe token: a symbol that remembers what it resolves to. */
export type Token<T> = symbol & { readonly __type?: T }
const token = <T>(name: string) => Symbol(name) as Token<T>

/** The time: the machine's, or CLOCK_NOW's. A test gives its own. */
export const ClockToken = token<Clock>('Clock')
/** Everything kept, behind the domain's ports: in memory or on PostgreSQL (openStorage). */
export const StorageToken = token<Storage>('Storage')
/** Who may call: API_KEYS (in memory, as digests) beside the storage's keys. */
export const AuthenticatorToken = token<Authenticator>('Authenticator')
