import { userInfo } from 'node:os'
import pg from 'pg'
import { targetedClient } from './connect-to-target.js'
import { parseConnectionTargets, type TargetSessionAttrs } from './connection-targets.js'
import { describeTargets } from './describe-targets.js'
import { withOptions } from './session-settings.js'

/** What pg is given for a connection string: its settings, the Client class that picks the host, a line for logs. */
export type ConnectionConfig = {
  readonly settings: pg.ClientConfig
  readonly Client: typeof pg.Client
  readonly description: string
}

// Several hosts are listed to find the one that takes writes; one host is whatever it is (libpq's `any`), so
// that a database read-only on purpose still serves reads. A URI's own target_session_attrs wins.
const byHosts = (hosts: number): TargetSessionAttrs => (hosts > 1 ? 'read-write' : 'any')

// libpq connects as the operating system's user when neither the URI nor PGUSER names one; pg falls back on
// $USER, which containers often leave unset, and would then send no user at all.
const systemUser = (): string | undefined => {
  if (process.env['PGUSER'] || process.env['USER']) return undefined
  try {
    return userInfo().username
  } catch {
    return undefined // no entry for this uid: pg's own refusal says what is missing
  }
}

/**
 * Reads a postgres:// URI as libpq does (several hosts, target_session_attrs, load_balance_hosts,
 * connect_timeout: connection-targets.ts), throwing an Error that names what it cannot honour, with `name`
 * (the variable's) in front; anything else (a key=value string) goes to pg as it is. `startup` (`-c name=value
 * …`) comes before the connection string's own `options`, so that an operator's `-c` wins.
 */
export const connectionConfig = (connectionString: string, startup: string | undefined, name: string) => {
  if (!/^postgres(ql)?:\/\//.test(connectionString)) {
    return { settings: withOptions(connectionString, startup), Client: pg.Client, description: name }
  }
  const targets = parseConnectionTargets(connectionString, {
    defaultTargetSessionAttrs: byHosts,
    label: name,
  })
  const options = [startup, targets.base.options].filter((o) => o !== undefined && o !== '').join(' ')
  const user = targets.base.user ?? systemUser()
  return {
    settings: {
      ...targets.base,
      ...(user === undefined ? {} : { user }),
      password: targets.base.password,
      options: options === '' ? undefined : options,
    },
    Client: targetedClient(targets),
    description: describeTargets(targets),
  } satisfies ConnectionConfig
}
