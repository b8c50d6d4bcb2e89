// One variant of the ablation, in a process of its own (fresh JIT and heap for each variant):
// node dist/ablation/ablation-child.js VARIANT COUNT. Prints one JSON line of costs on stderr;
// stdout is where the service's log lines go (the parent sends it to /dev/null).
import { createHttpApp, createTokenBucketRateLimiter, silentLogger } from '@pets/adapters-http'
import { createMemoryApiKeyStore, createMemoryStorage, createSystemClock } from '@pets/adapters-memory'
import { createLogger, createServiceMetrics, createUsageCounter, httpLoggerOf } from '@pets/api'
import { anyAuthenticator, createUseCases, decodeNewPet } from '@pets/domain'
import type { RequestListener } from 'node:http'
import { measureInProcess, type Cost } from './drive-in-process.js'
import { ABLATION_REQUESTS, type Variant } from './variants.js'

const KEY = 'ablation-key-0123456789abcdef'

/** The service as createService wires it, on the in-memory storage, with `variant`'s piece changed. */
const composeService = async (variant: Variant): Promise<RequestListener> => {
  const storage = createMemoryStorage()
  const useCases = createUseCases({ storage, clock: createSystemClock() })
  for (let i = 0; i < 1000; i++) {
    const pet = decodeNewPet({
      name: `pet ${i}`,
      categoryId: 1 + (i % 7),
      status: ['available', 'pending', 'sold'][i % 3],
    })
    if (pet._tag === 'Left') throw new Error('seed pet refused')
    await useCases.createPet({ pet: pet.right })()
  }
  // As shipped: JSON lines at info through the buffered destination, on stdout.
  const logger = createLogger({ logLevel: 'info', logFormat: 'json' })
  const metrics = createServiceMetrics({ deprecatedOperations: ['getPet'] })
  const usage = createUsageCounter({ log: storage.usageLog, flushEveryMs: 5000, logger })
  const countMetrics = variant !== 'without metrics'
  const countUsage = variant !== 'without usage counting'
  const app = createHttpApp({
    useCases,
    authenticator: anyAuthenticator(
      createMemoryApiKeyStore({ keys: [{ key: KEY, name: 'bench' }] }),
      storage.apiKeys,
    ),
    publicBaseUrl: 'http://127.0.0.1:3000/v1',
    logger: variant === 'without request log' ? silentLogger : httpLoggerOf(logger),
    ...(variant === 'with rate limiter'
      ? { rateLimiter: createTokenBucketRateLimiter({ perSecond: 1e9, burst: 1e9 }) }
      : {}),
    operations: {
      metrics: metrics.page,
      ...(countMetrics || countUsage
        ? {
            observe: (request) => {
              if (countMetrics) metrics.observe(request)
              if (countUsage && request.apiKeyId !== null && request.operation !== null)
                usage.count(request.apiKeyId, request.operation)
            },
          }
        : {}),
    },
  })
  return app.callback()
}

const main = async () => {
  const [variant, count] = [process.argv[2] as Variant, Number(process.argv[3] ?? 20_000)]
  const handle =
    variant === 'bare Koa 3 + @koa/router'
      ? await (await import('./koa-same-work.js')).koaSameWork(KEY)
      : await composeService(variant)
  const costs: Record<string, Cost> = {}
  const only = process.argv[4]
  for (const [name, request] of Object.entries(ABLATION_REQUESTS(KEY)))
    if (only === undefined || only === name)
      costs[name] = await measureInProcess(handle, request, request.method === 'POST' ? 201 : 200, count)
  process.stderr.write(`${JSON.stringify(costs)}\n`)
  process.exit(0)
}

void main()
