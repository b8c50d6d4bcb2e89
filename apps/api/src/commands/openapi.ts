import { buildOpenApiDocument } from '@pets/adapters-http'
import { writeFile } from 'node:fs/promises'
import { apiServers } from '../api-servers.js'
import { namesOwnHost, type AppConfig } from '../config.js'
import { OPENAPI_USAGE, UsageError } from './usage.js'

/**
 * `animal-store openapi`: the document the service serves at /openapi.json, with the servers of
 * the configured environment, so that it can be published with a release. No store is opened.
 */
export const openapiCommand = async (
  config: AppConfig,
  args: ReadonlyArray<string>,
  print: (line: string) => void,
): Promise<void> => {
  const out = args.length === 2 && args[0] === '--out' && args[1] !== '' ? args[1] : undefined
  if (args.length > 0 && out === undefined)
    throw new UsageError(
      `openapi: ${args[0] === '--out' ? 'needs --out FILE' : 'takes --out FILE only'}, not ${JSON.stringify(args.join(' '))}; usage:\n${OPENAPI_USAGE}`,
    )
  // A document to publish for staging or production names where its clients reach it, never this machine.
  if (namesOwnHost(config))
    throw new UsageError(
      `openapi: APP_ENV=${config.env} needs PUBLIC_BASE_URL, the URL its clients reach /v1 at, for the ` +
        "document's servers",
    )
  const json = JSON.stringify(buildOpenApiDocument({ servers: apiServers(config) }), null, 2)
  // `-`, as many tools read it: standard output.
  if (out === undefined || out === '-') return print(json)
  await writeFile(out, `${json}\n`)
  print(`Wrote the OpenAPI document (${apiServers(config)[0]?.url}) to ${out}`)
}
