// tsyringe refuses to load without it; nothing else uses it.
import 'reflect-metadata'
import { createHttpApp } from '@pets/adapters-http'
import { createMemoryApiKeyStore, createMemoryPetRepository, createSystemClock } from '@pets/adapters-memory'
import {
  createPostgresApiKeyStore,
  createPostgresDatabase,
  createPostgresPetRepository,
} from '@pets/adapters-postgres'
import { anyAuthenticator, createPet, getPet, listPets, type Clock } from '@pets/domain'
import { container, instanceCachingFactory, type DependencyContainer } from 'tsyringe'
import { defaultPublicBaseUrl, type AppConfig } from './config.js'
import type { Logger } from './logger.js'
import {
  ApiKeyStoreToken,
  AuthenticatorToken,
  ClockToken,
  ClosersToken,
  ConfigToken,
  CreatePetToken,
  DatabaseToken,
  GetPetToken,
  HttpAppToken,
  ListPetsToken,
  LoggerToken,
  PetRepositoryToken,
  type Closer,
  type Token,
} from './tokens.js'

const get = <T>(c: DependencyContainer, t: Token<T>): T => c.resolve<T>(t)
const once = <T>(make: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory(make) })

/** Registrations that replace the defaults, such as a test's clock. */
export type ContainerOverrides = { readonly clock?: Clock }

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
          onError: (error) => logger.warn({ err: error }, 'a PostgreSQL connection broke; the pool replaces it'),
        })
        closers.push(database.close)
        return database
      }),
    )
    c.register(PetRepositoryToken, once((c) => createPostgresPetRepository(get(c, DatabaseToken).db)))
    c.register(ApiKeyStoreToken, once((c) => createPostgresApiKeyStore(get(c, DatabaseToken).db)))
  } else {
    c.register(PetRepositoryToken, once(() => createMemoryPetRepository()))
    c.register(ApiKeyStoreToken, once(() => createMemoryApiKeyStore({ idPrefix: 'mem-' })))
  }
  c.register(
    AuthenticatorToken,
    once((c) =>
      anyAuthenticator(
        // CONTRACT: API_KEYS works beside the stored keys, as digests in memory.
        createMemoryApiKeyStore({
          keys: config.apiKeys.map((key, i) => ({ key, name: `API_KEYS #${i + 1}` })),
          idPrefix: 'env-',
        }),
        get(c, ApiKeyStoreToken),
      ),
    ),
  )
  c.register(ListPetsToken, once((c) => listPets({ pets: get(c, PetRepositoryToken) })))
  c.register(CreatePetToken, once((c) => createPet({ pets: get(c, PetRepositoryToken) })))
  c.register(GetPetToken, once((c) => getPet({ pets: get(c, PetRepositoryToken), clock: get(c, ClockToken) })))
  c.register(
    HttpAppToken,
    once((c) =>
      createHttpApp({
        useCases: {
          listPets: get(c, ListPetsToken),
          createPet: get(c, CreatePetToken),
          getPet: get(c, GetPetToken),
        },
        authenticator: get(c, AuthenticatorToken),
        publicBaseUrl: config.publicBaseUrl ?? defaultPublicBaseUrl(config),
        logger: get(c, LoggerToken),
      }),
    ),
  )
  return c
}

/** Resolves a token of a built container. */
export const resolve = get
