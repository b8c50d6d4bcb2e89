import { readFileSync } from 'node:fs'
import type pg from 'pg'

/** The error for a parameter's bad value, naming what it may be. */
export type BadValue = (key: string, allowed: ReadonlyArray<string>) => Error
type Pick = <T extends string>(key: string, allowed: ReadonlyArray<T>) => T | undefined

/**
 * pg's reading of the TLS parameters (pg-connection-string 2, without uselibpqcompat): prefer, require and
 * verify-ca verify the certificate and the host name as verify-full does; prefer never falls back to plain text.
 */
export const tlsSettings = (params: Map<string, string>, pick: Pick, badValue: BadValue): pg.ClientConfig => {
  const mode = pick('sslmode', ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'])
  const flag = pick('ssl', ['true', '1', 'false', '0'])
  const negotiation = pick('sslnegotiation', ['postgres', 'direct'])
  const files = (['sslrootcert', 'sslcert', 'sslkey'] as const).filter((key) => params.has(key))
  let ssl: pg.ClientConfig['ssl'] = flag === undefined ? undefined : flag === 'true' || flag === '1'
  if (mode !== undefined || files.length > 0) ssl = mode === 'no-verify' ? { rejectUnauthorized: false } : {}
  if (mode === 'disable') ssl = false
  if (negotiation === 'direct' && ssl === false) throw badValue('sslnegotiation', ['postgres, TLS being off'])
  if (negotiation === 'direct') ssl = ssl ?? true
  if (typeof ssl === 'object') {
    const field = { sslrootcert: 'ca', sslcert: 'cert', sslkey: 'key' } as const
    for (const key of files) {
      const file = params.get(key) ?? ''
      if (key === 'sslrootcert' && file === 'system') continue // libpq 16: the system's CAs, node's default
      try {
        ssl[field[key]] = readFileSync(file, 'utf8')
      } catch (error) {
        throw badValue(key, [`a file to read: ${(error as { code?: string }).code ?? String(error)}`])
      }
    }
  }
  return { ...(ssl === undefined ? {} : { ssl }), ...(negotiation && { sslnegotiation: negotiation }) }
}
