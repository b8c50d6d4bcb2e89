import type { PostgresDatabase } from '@pets/adapters-postgres'
import type {
  ApiKeyStore,
  ApiKeyUsageLog,
  Authenticator,
  Clock,
  createPet,
  createPetOnce,
  getPet,
  IdempotentPetCreations,
  listPets,
  PetRepository,
  StoreHealth,
} from '@pets/domain'
import type { HttpLogger } from '@pets/adapters-http'
import type Koa from 'koa'
import type { AppConfig } from './config.js'
import type { Lifecycle } from './lifecycle.js'
import type { ServiceMetrics } from './service-metrics.js'
import type { IdempotencyCleanup } from './idempotency-cleanup.js'
import type { UsageCounter } from './usage-counter.js'

/** A typed tsyringe token: a symbol that remembers what it resolves to. */
export type Token<T> = symbol & { readonly __type?: T }
const token = <T>(name: string) => Symbol(name) as Token<T>

/** Something to close when the service stops (a pool, a timer), in reverse order of opening. */
export type Closer = () => Promise<void>

export const ConfigToken = token<AppConfig>('Config')
export const LoggerToken = token<HttpLogger>('Logger')
export const ClosersToken = token<Array<Closer>>('Closers')
export const ClockToken = token<Clock>('Clock')
/** The PostgreSQL pool; registered only when the storage is PostgreSQL. */
export const DatabaseToken = token<PostgresDatabase>('Database')
/** Keys issued by `keys create`: in PostgreSQL, or in memory (then they last as long as the process). */
export const ApiKeyStoreToken = token<ApiKeyStore>('ApiKeyStore')
export const PetRepositoryToken = token<PetRepository>('PetRepository')
export const AuthenticatorToken = token<Authenticator>('Authenticator')
export const ListPetsToken = token<ReturnType<typeof listPets>>('ListPets')
export const CreatePetToken = token<ReturnType<typeof createPet>>('CreatePet')
export const GetPetToken = token<ReturnType<typeof getPet>>('GetPet')
export const HttpAppToken = token<Koa>('HttpApp')
export const LifecycleToken = token<Lifecycle>('Lifecycle')
/** Whether the store answers: what /readyz asks. */
export const StoreHealthToken = token<StoreHealth>('StoreHealth')
/** Calls per API key and operation: in PostgreSQL, or in memory. */
export const ApiKeyUsageLogToken = token<ApiKeyUsageLog>('ApiKeyUsageLog')
/** Batches the calls counted per API key into the usage log. */
export const UsageCounterToken = token<UsageCounter>('UsageCounter')
export const MetricsToken = token<ServiceMetrics>('Metrics')
/** Pets added at most once per API key and Idempotency-Key: in PostgreSQL, or in memory. */
export const IdempotentPetCreationsToken = token<IdempotentPetCreations>('IdempotentPetCreations')
export const CreatePetOnceToken = token<ReturnType<typeof createPetOnce>>('CreatePetOnce')
/** Removes expired idempotency records now and then; resolving it starts it. */
export const IdempotencyCleanupToken = token<IdempotencyCleanup>('IdempotencyCleanup')
