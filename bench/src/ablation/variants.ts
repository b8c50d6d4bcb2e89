import type { InProcessRequest } from './drive-in-process.js'

/** The service as shipped, then with one piece changed at a time, and bare Koa doing the same work. */
export const VARIANTS = [
  'service as shipped',
  'without request log',
  'without metrics',
  'without usage counting',
  'with rate limiter',
  'bare Koa 3 + @koa/router',
] as const
export type Variant = (typeof VARIANTS)[number]

/** The requests of the ablation: list 20 and create, with a key. */
export const ABLATION_REQUESTS = (key: string): Readonly<Record<'list 20' | 'create', InProcessRequest>> => {
  const body = JSON.stringify({ name: 'Rex', categoryId: 3, status: 'sold' })
  return {
    'list 20': { method: 'GET', url: '/v1/pets?limit=20', headers: { authorization: `Bearer ${key}` } },
    create: {
      method: 'POST',
      url: '/v1/pets',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    },
  }
}
