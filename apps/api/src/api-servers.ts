import type { OpenApiServer } from '@pets/adapters-http'
import { defaultPublicBaseUrl, type AppConfig } from './config.js'

/** The `servers` of the OpenAPI document: the current environment's PUBLIC_BASE_URL, named after it. */
export const apiServers = (
  config: Pick<AppConfig, 'env' | 'host' | 'port' | 'publicBaseUrl'>,
): ReadonlyArray<OpenApiServer> => [
  { url: config.publicBaseUrl ?? defaultPublicBaseUrl(config), description: config.env },
]
