// tsyringe refuses to load without it; nothing else uses it.
import 'reflect-metadata'
import { createSystemClock } from '@pets/adapters-memory'
import type { Clock } from '@pets/domain'
import { container, instanceCachingFactory, type DependencyContainer } from 'tsyringe'
import type { AppConfig } from './config.js'
import type { OpenedStorage } from './storage/open-storage.js'
import { AuthenticatorToken, ClockToken, StorageToken, type Token } from './tokens.js'

/** Registrations that replace the defaults, such as a test's clock. */
export type ContainerOverrides = { readonly clock?: Clock | undefined }

/**
 * What backs which port, in a child container of its own (two services or tests never share a part): Clock
 * (the machine's or CLOCK_NOW's), Storage (openStorage), Authenticator (the storage's). Explicit tokens and
 * factories only: nothing depends on decorator metadata, and nothing starts when resolved.
 */
export const buildContainer = (
  config: AppConfig,
  opened: OpenedStorage,
  overrides: ContainerOverrides = {},
): DependencyContainer => {
  const c = container.createChildContainer()
  c.register(ClockToken, { useValue: overrides.clock ?? createSystemClock(config.clockNow) })
  c.register(StorageToken, { useValue: opened.storage })
  c.register(AuthenticatorToken, {
    useFactory: instanceCachingFactory((c) => resolve(c, StorageToken).authenticator),
  })
  return c
}

/** Resolves a token of a built container. */
export const resolve = <T>(c: DependencyContainer, token: Token<T>): T => c.resolve<T>(token)
