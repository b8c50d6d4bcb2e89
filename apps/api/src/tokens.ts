import type { PostgresDatabase } from '@pets/adapters-postgres'
import type { ApiKeyStore, Authenticator, Clock, createPet, getPet, listPets, PetRepository } from '@pets/domain'
import type { HttpLogger } from '@pets/adapters-http'
import type Koa from 'koa'
import type { AppConfig } from './config.js'

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
