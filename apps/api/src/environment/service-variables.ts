import { STORAGE_CLOSE_MS } from '../lifecycle.js'
import * as t from 'io-ts'
import { APP_ENVS, LOG_LEVELS, type AppEnv } from './app-config.js'
import { integer, oneOf } from './codecs.js'
import { publicBaseUrl } from './url-codecs.js'
import { calendarInstant, listenHost } from './host-and-clock-codecs.js'
import { storageKind } from './storage-variables.js'
import { optional, variable, type AnyVariable, type Get } from './variable.js'

// `a`, `b` or `c`: the values a variable may take, for its meaning.
const either = (values: ReadonlyArray<string>) =>
  `${values
    .slice(0, -1)
    .map((v) => `\`${v}\``)
    .join(', ')} or \`${values.at(-1)}\``

// The environments NODE_ENV may stand for: the others (`test`, …) say nothing of a deployment.
const DEPLOYMENTS: ReadonlySet<string> = new Set<AppEnv>(['staging', 'production'])

/** Not the environment (CONTRACT: APP_ENV chooses it), but what platforms and images set: a trap worth a word. */
export const NODE_ENV = optional({
  name: 'NODE_ENV',
  codec: t.string,
  unset: 'nothing',
  meaning:
    'Does not choose the environment (`APP_ENV` does); when it is `production` or `staging` and `APP_ENV` is ' +
    'unset, the service warns at start that it runs as development (many platforms and images set ' +
    '`NODE_ENV=production`)',
})

/** The deployment NODE_ENV names while APP_ENV is unset, so the start can say it is not heeded. */
export const unheededNodeEnv = (get: Get, given: (variable: AnyVariable) => boolean): AppEnv | undefined => {
  const node = get(NODE_ENV)
  return !given(APP_ENV) && node !== undefined && DEPLOYMENTS.has(node) ? (node as AppEnv) : undefined
}

export const APP_ENV = variable<AppEnv>({
  name: 'APP_ENV',
  codec: oneOf(APP_ENVS),
  default: { value: 'development' },
  meaning: either(APP_ENVS),
})

export const HOST = variable({
  name: 'HOST',
  codec: listenHost,
  default: { value: '127.0.0.1' },
  meaning: 'Address to listen on (`0.0.0.0` for every interface)',
})

export const PORT = variable({
  name: 'PORT',
  codec: integer(0, 65535),
  default: { value: 3000 },
  meaning: 'TCP port to listen on (0: any free port)',
})

export const PUBLIC_BASE_URL = optional({
  name: 'PUBLIC_BASE_URL',
  codec: publicBaseUrl,
  unset: '`http://HOST:PORT/v1`',
  meaning:
    'Where clients reach `/v1`; used in `Location` and `Link` headers, written as its URL serialization ' +
    '(ASCII: a host such as `bücher.example` in punycode, a space of the path as `%20`)',
})

export const LOG_LEVEL = variable({
  name: 'LOG_LEVEL',
  codec: oneOf(LOG_LEVELS),
  default: { value: 'info' },
  meaning: either(LOG_LEVELS),
})

export const LOG_FORMAT = variable({
  name: 'LOG_FORMAT',
  codec: oneOf(['json', 'pretty'] as const),
  default: {
    text: '`pretty` in development when standard output is a terminal, else `json`',
    of: (get, { stdoutIsTty }) =>
      get(APP_ENV) === 'development' && stdoutIsTty === true ? 'pretty' : 'json',
  },
  meaning: '`json` lines, or `pretty` for a person at a terminal',
})

export const CLOCK_NOW = optional({
  name: 'CLOCK_NOW',
  codec: calendarInstant,
  unset: 'unset',
  production: {
    rule: 'refused',
    refuse: (now) => (now === undefined ? [] : ['CLOCK_NOW is refused in production']),
  },
  meaning:
    "ISO 8601 instant the service's clock starts at, to try the sunset of getPet (and, on PostgreSQL, the 24 " +
    "hours of `Idempotency-Key` records, which otherwise follow the database's clock)",
})

// CONTRACT: the delay is the time a load balancer needs to see /readyz turn 503.
export const SHUTDOWN_DELAY_MS = variable({
  name: 'SHUTDOWN_DELAY_MS',
  codec: integer(0, 600000),
  default: {
    text: '`0` in development, `5000` elsewhere',
    of: (get) => (get(APP_ENV) === 'development' ? 0 : 5000),
  },
  meaning:
    'After SIGTERM or SIGINT, how long requests are still served while `/readyz` answers 503: the time a ' +
    'load balancer needs to notice',
})

export const SHUTDOWN_GRACE_MS = variable({
  name: 'SHUTDOWN_GRACE_MS',
  codec: integer(0, 600000),
  default: { value: 10000 },
  meaning:
    'Then, once the listener is closed, how long in-flight requests may run on: those left are cut, each ' +
    `logged, and the exit status is 1. The last writes and closing the pool get ${STORAGE_CLOSE_MS / 1000} s ` +
    'of their own',
})

export const READY_TIMEOUT_MS = variable({
  name: 'READY_TIMEOUT_MS',
  codec: integer(1, 60000),
  default: { value: 1000 },
  meaning: 'How long `/readyz` waits for the store before it answers 503',
})

export const USAGE_FLUSH_MS = variable({
  name: 'USAGE_FLUSH_MS',
  codec: integer(100, 3600000),
  default: { value: 5000 },
  meaning: 'How often the calls counted per API key are written to the database (see `keys usage`)',
})

export const WEB_CONCURRENCY = variable({
  name: 'WEB_CONCURRENCY',
  codec: integer(1, 256),
  default: { value: 1 },
  requires: (workers, get) =>
    workers > 1 && storageKind(get) === 'memory'
      ? ['WEB_CONCURRENCY above 1 needs PostgreSQL: each worker would keep pets of its own in memory']
      : [],
  meaning: 'Worker processes sharing the port (node:cluster); above 1 needs PostgreSQL',
})

export const IDEMPOTENCY_CLEANUP_MS = variable({
  name: 'IDEMPOTENCY_CLEANUP_MS',
  codec: integer(100, 86_400_000),
  default: { value: 600_000 },
  meaning: 'How often the service removes the records of Idempotency-Keys older than 24 hours',
})

export const HEADERS_TIMEOUT_MS = variable({
  name: 'HEADERS_TIMEOUT_MS',
  codec: integer(100, 600_000),
  default: { value: 10_000 },
  meaning:
    "How long a client may take to send a request's line and headers; checked every half of it, so a " +
    'slow one is cut within 1.5 times it. A connection on which nothing moves for 1.5 times it (at least ' +
    '5 s) while a request is under way, such as a client that does not read its answer, is ended within ' +
    'twice that',
})

export const KEEP_ALIVE_TIMEOUT_MS = variable({
  name: 'KEEP_ALIVE_TIMEOUT_MS',
  codec: integer(1_000, 600_000),
  default: { value: 5_000 },
  meaning:
    'How long a kept-alive connection may stay idle between requests before the service closes it. Behind ' +
    "a balancer that keeps idle connections longer (an AWS ALB: 60 s), set it above the balancer's idle " +
    'timeout, or the balancer may send a request on a connection the service is closing (a 502)',
})

export const MAX_CONNECTIONS = variable({
  name: 'MAX_CONNECTIONS',
  codec: integer(1, 1_000_000),
  default: { value: 10_000 },
  meaning:
    'Connections each listener keeps open at once; past it new ones are closed as they are accepted, with ' +
    'a `warn` line a second at most. Keep it below the open-file limit (`ulimit -n`)',
})

export const METRICS_PORT = optional({
  name: 'METRICS_PORT',
  codec: integer(0, 65535),
  unset: 'unset',
  requires: (port, get) =>
    port !== undefined && port !== 0 && port === get(PORT)
      ? ['METRICS_PORT must differ from PORT: /metrics is served there instead of on PORT']
      : [],
  meaning:
    'Serve `/metrics` (with `/healthz` and `/readyz`) on this port of `HOST` instead, and answer `404` for ' +
    '`/metrics` on `PORT`; must differ from `PORT` (`0`: a free port, which the `listening` line names as ' +
    '`metricsUrl`)',
})
