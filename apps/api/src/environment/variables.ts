import * as access from './access-variables.js'
import * as service from './service-variables.js'
import { STORAGE_VARIABLES } from './storage-variables.js'
import { TRACING_VARIABLES } from './tracing-variables.js'
import type { AnyVariable } from './variable.js'

/**
 * Every environment variable the service reads, in one table: its codec, default, production rule
 * and meaning are written once, in its row. loadConfig reads them in this order (so its messages
 * come in it), and the README's table "Configuration" is this one (configurationTable).
 */
export const VARIABLES: ReadonlyArray<AnyVariable> = [
  service.APP_ENV,
  service.NODE_ENV,
  service.HOST,
  service.PORT,
  service.PUBLIC_BASE_URL,
  ...STORAGE_VARIABLES,
  access.API_KEYS,
  access.API_KEY_ID_SECRET,
  service.LOG_LEVEL,
  service.LOG_FORMAT,
  service.CLOCK_NOW,
  service.SHUTDOWN_DELAY_MS,
  service.SHUTDOWN_GRACE_MS,
  service.READY_TIMEOUT_MS,
  service.USAGE_FLUSH_MS,
  service.WEB_CONCURRENCY,
  access.RATE_LIMIT_PER_SECOND,
  access.RATE_LIMIT_BURST,
  service.IDEMPOTENCY_CLEANUP_MS,
  access.TRUST_PROXY,
  access.AUTH_FAILURE_LIMIT_PER_SECOND,
  access.AUTH_FAILURE_LIMIT_BURST,
  service.HEADERS_TIMEOUT_MS,
  service.KEEP_ALIVE_TIMEOUT_MS,
  service.MAX_CONNECTIONS,
  service.METRICS_PORT,
  ...TRACING_VARIABLES,
]

const defaultOf = (v: AnyVariable): string => {
  if (v.default === undefined) return v.unset ?? 'unset'
  if ('text' in v.default) return v.default.text
  return `\`${v.codec.encode(v.default.value as never)}\``
}

/** The README's table "Configuration", in Markdown: one row per variable of VARIABLES. */
export const configurationTable = (): string =>
  [
    '| Variable | Default | In production | Meaning |',
    '|---|---|---|---|',
    ...VARIABLES.map(
      (v) => `| \`${v.name}\` | ${defaultOf(v)} | ${v.production?.rule ?? ''} | ${v.meaning} |`,
    ),
  ].join('\n')
