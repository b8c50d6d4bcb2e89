import { createRequire } from 'node:module'

/** The installed swagger-ui-dist's version: the docs serve their assets under it. */
export const SWAGGER_UI_VERSION = (
  createRequire(import.meta.url)('swagger-ui-dist/package.json') as { version: string }
).version
