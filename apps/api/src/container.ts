// tsyringe refuses to load without it; nothing else uses it.
import 'reflect-metadata'
import {
  createHttpApp,
  createTokenBucketRateLimiter,
  DEPRECATED_OPERATIONS,
  type MetricsPage,
  type ShuttingDown,
} from '@pets/adapters-http'
import {
  createMemoryApiKeyStore,
  createMemoryApiKeyUsageLog,
  createMemoryIdempotentPetCreations,
  createMemoryPetRepository,
  createMemoryStoreHealth,
  createSystemClock,
} from '@pets/adapters-memory'
import {
  createPostgresApiKeyStore,
  createPostgresApiKeyUsageLog,
  createPostgresDatabase,
  createPostgresIdempotentPetCreations,
  createPostgresPetRepository,
  createPostgresStoreHealth,
} from '@pets/adapters-postgres'
import {
  anyAuthenticator,
  createPet,
  createPetOnce,
  forgetExpiredCreations,
  getPet,
  listPets,
  type Clock,
} from '@pets/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { container, instanceCachingFactory, type DependencyContainer } from 'tsyringe'
import { apiServers } from './api-servers.js'
import { environmentKeys } from './environment-keys.js'
import { defaultPublicBaseUrl, type AppConfig } from './config.js'
import { startIdempotencyCleanup } from './idempotency-cleanup.js'
import { createLifecycle } from './lifecycle.js'
import { httpLoggerOf, type Logger } from './logger.js'
import { createServiceMetrics, type ServiceMetrics } from './service-metrics.js'
import { createUsageCounter } from './usage-counter.js'
import {
  ApiKeyStoreToken,
  ApiKeyUsageLogToken,
  AuthenticatorToken,
  ClockToken,
  ClosersToken,
  ConfigToken,
  CreatePetOnceToken,
  CreatePetToken,
  DatabaseToken,
  GetPetToken,
  HttpAppToken,
  IdempotencyCleanupToken,
  IdempotentPetCreationsToken,
  LifecycleToken,
  ListPetsToken,
  LoggerToken,
  MetricsToken,
  PetRepositoryToken,
  StoreHealthToken,
  UsageCounterToken,
  type Closer,
  type Token,
} from './tokens.js'

const get = <T>(c: DependencyContainer, t: Token<T>): T => c.resolve<T>(t)
const once = <T>(make: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory(make) })

/** Registrations that replace the defaults, such as a test's clock. */
export type ContainerOverrides = {
  readonly clock?: Clock
  /** Makes what /metrics serves from the service's own metrics (a cluster worker asks its primary). */
  readonly metricsPage?: (local: ServiceMetrics) => () => Promise<MetricsPage>
}

/**
 * Wires the service for one configuration, in a child container of its own, so two services (or
 * two tests) in one process never share state. Explicit tokens and factories only: nothing here
 * depends on decorator metadata.
 */
export const buildContainer = (
  config: AppConfig,
  logger: Logger,
  overrides: ContainerOverrides = {},
): DependencyContainer => {
  const c = container.createChildContainer()
  const storage = config.storage
  const closers: Array<Closer> = []
  c.register(ConfigToken, { useValue: config })
  c.register(LoggerToken, { useValue: logger })
  c.register(ClosersToken, { useValue: closers })
  c.register(ClockToken, { useValue: overrides.clock ?? createSystemClock(config.clockNow) })
  if (storage.kind === 'postgres') {
    c.register(
      DatabaseToken,
      once(() => {
        const database = createPostgresDatabase({
          connectionString: storage.url,
          poolSize: storage.poolSize,
          connectionTimeoutMs: storage.connectionTimeoutMs,
          statementTimeoutMs: storage.statementTimeoutMs,
          applicationName: 'animal-store',
          onError: (error) =>
            logger.warn({ err: error }, 'a PostgreSQL connection broke; the pool replaces it'),
        })
        closers.push(database.close)
        return database
      }),
    )
    c.register(
      PetRepositoryToken,
      once((c) => createPostgresPetRepository(get(c, DatabaseToken).db)),
    )
    c.register(
      ApiKeyStoreToken,
      once((c) => createPostgresApiKeyStore(get(c, DatabaseToken).db)),
    )
    c.register(
      ApiKeyUsageLogToken,
      once((c) => createPostgresApiKeyUsageLog(get(c, DatabaseToken).db)),
    )
    c.register(
      IdempotentPetCreationsToken,
      once((c) => createPostgresIdempotentPetCreations(get(c, DatabaseToken).db)),
    )
    c.register(
      StoreHealthToken,
      once((c) => createPostgresStoreHealth(get(c, DatabaseToken).db, { timeoutMs: config.readyTimeoutMs })),
    )
  } else {
    c.register(
      PetRepositoryToken,
      once(() => createMemoryPetRepository()),
    )
    c.register(
      ApiKeyStoreToken,
      once(() => createMemoryApiKeyStore({ idPrefix: 'mem-' })),
    )
    c.register(
      ApiKeyUsageLogToken,
      once(() => createMemoryApiKeyUsageLog()),
    )
    c.register(
      IdempotentPetCreationsToken,
      once((c) => createMemoryIdempotentPetCreations(get(c, PetRepositoryToken))),
    )
    c.register(
      StoreHealthToken,
      once(() => createMemoryStoreHealth()),
    )
  }
  c.register(LifecycleToken, { useValue: createLifecycle() })
  c.register(
    MetricsToken,
    once((c) =>
      createServiceMetrics({
        deprecatedOperations: DEPRECATED_OPERATIONS,
        ...(storage.kind === 'postgres' ? { pool: get(c, DatabaseToken).pool } : {}),
      }),
    ),
  )
  c.register(
    UsageCounterToken,
    once((c) => {
      const counter = createUsageCounter({
        log: get(c, ApiKeyUsageLogToken),
        flushEveryMs: config.usageFlushMs,
        logger,
      })
      closers.push(counter.close)
      return counter
    }),
  )
  c.register(
    AuthenticatorToken,
    once((c) =>
      anyAuthenticator(
        // CONTRACT: API_KEYS works beside the stored keys, as digests in memory.
        createMemoryApiKeyStore({ keys: environmentKeys(config.apiKeys) }),
        get(c, ApiKeyStoreToken),
      ),
    ),
  )
  c.register(
    ListPetsToken,
    once((c) => listPets({ pets: get(c, PetRepositoryToken) })),
  )
  c.register(
    CreatePetToken,
    once((c) => createPet({ pets: get(c, PetRepositoryToken) })),
  )
  c.register(
    GetPetToken,
    once((c) => getPet({ pets: get(c, PetRepositoryToken), clock: get(c, ClockToken) })),
  )
  c.register(
    CreatePetOnceToken,
    once((c) => createPetOnce({ creations: get(c, IdempotentPetCreationsToken), clock: get(c, ClockToken) })),
  )
  c.register(
    IdempotencyCleanupToken,
    once((c) => {
      const cleanup = startIdempotencyCleanup({
        forgetExpired: forgetExpiredCreations({
          creations: get(c, IdempotentPetCreationsToken),
          clock: get(c, ClockToken),
        }),
        everyMs: config.idempotencyCleanupMs,
        logger,
      })
      closers.push(cleanup.close)
      return cleanup
    }),
  )
  c.register(
    HttpAppToken,
    once((c) =>
      createHttpApp({
        useCases: {
          listPets: get(c, ListPetsToken),
          createPet: get(c, CreatePetToken),
          createPetOnce: get(c, CreatePetOnceToken),
          getPet: get(c, GetPetToken),
        },
        authenticator: get(c, AuthenticatorToken),
        ...(config.rateLimit === undefined
          ? {}
          : { rateLimiter: createTokenBucketRateLimiter(config.rateLimit) }),
        publicBaseUrl: config.publicBaseUrl ?? defaultPublicBaseUrl(config),
        servers: apiServers(config),
        logger: httpLoggerOf(logger),
        operations: operations(c, overrides),
      }),
    ),
  )
  return c
}

const shuttingDown: ShuttingDown = { _tag: 'ShuttingDown' }

// What /readyz, /metrics and the per-request counters need, from the container's parts.
const operations = (c: DependencyContainer, overrides: ContainerOverrides) => {
  const lifecycle = get(c, LifecycleToken)
  const health = get(c, StoreHealthToken)
  const metrics = get(c, MetricsToken)
  const usage = get(c, UsageCounterToken)
  return {
    // CONTRACT: /readyz answers 503 from the moment shutdown begins, whatever the store says.
    ready: () => (lifecycle.draining() ? TE.left(shuttingDown) : health.check()),
    metrics: overrides.metricsPage?.(metrics) ?? metrics.page,
    observe: (request: Parameters<ServiceMetrics['observe']>[0]) => {
      metrics.observe(request)
      if (request.apiKeyId !== null && request.operation !== null)
        usage.count(request.apiKeyId, request.operation)
    },
  }
}

/** Resolves a token of a built container. */
export const resolve = get
