/** One request of a failover load, and how it ended. */
export type Sample = {
  /** `create` without Idempotency-Key, `keyed` with one, `list` a page of pets, `ready` a /readyz probe. */
  readonly kind: 'create' | 'keyed' | 'list' | 'ready'
  /** The pet's name: one per create, one per key, so a pet is found by it. */
  readonly name?: string
  readonly key?: string
  readonly startedAt: number
  endedAt?: number
  status?: number
  retryAfter?: string | null
  /** The id of the pet a 201 gave. */
  id?: number
  error?: string
}

/** How much load: writer loops (each create, keyed create, list in turn), pauses, the /readyz pace. */
export type FailoverLoadOptions = {
  /** Starts every pet's name and key, so that loads sharing a database keep theirs apart. */
  readonly prefix?: string
  readonly writers?: number
  readonly pauseMs?: number
  readonly readyEveryMs?: number
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
// A request the service holds longer than this is noted as an error, not waited for.
const REQUEST_TIMEOUT_MS = 15_000

/** Sends `init` to `url` and notes the answer in `sample`. */
const send = async (sample: Sample, url: string, init: RequestInit) => {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    sample.status = res.status
    sample.retryAfter = res.headers.get('retry-after')
    const body = (await res.json().catch(() => undefined)) as { id?: unknown } | undefined
    if (res.status === 201 && typeof body?.id === 'number') sample.id = body.id
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    sample.error = cause?.code ?? (error instanceof Error ? error.name : String(error))
  } finally {
    sample.endedAt = Date.now()
  }
}

/** POST /v1/pets as the load sends it; `key` adds an Idempotency-Key. */
export const postPet = (
  url: string,
  apiKey: string,
  name: string,
  key?: string,
): RequestInit & { url: string } => ({
  url: `${url}/v1/pets`,
  method: 'POST',
  headers: {
    Authorization: `Bearer ${apiKey}`,
    'Content-Type': 'application/json',
    ...(key === undefined ? {} : { 'Idempotency-Key': key }),
  },
  body: JSON.stringify({ name, categoryId: 1 }),
})

/** Sends one request as the load does, and returns its sample. */
export const sendOne = async (
  kind: Sample['kind'],
  request: RequestInit & { url: string },
  meta: { name?: string; key?: string } = {},
): Promise<Sample> => {
  const sample: Sample = { kind, ...meta, startedAt: Date.now() }
  await send(sample, request.url, request)
  return sample
}

/**
 * Keeps `writers` loops of creates (half with an Idempotency-Key of their own) and listings
 * going against the service at `url`, and probes /readyz, until `stop`.
 */
export const startFailoverLoad = (url: string, apiKey: string, o: FailoverLoadOptions = {}) => {
  const samples: Array<Sample> = []
  const prefix = o.prefix ?? ''
  let stopped = false
  const note = async (...args: Parameters<typeof sendOne>) => void samples.push(await sendOne(...args))
  const writer = async (w: number) => {
    for (let n = 0; !stopped; n++) {
      const name = `${prefix}pet ${w}.${n}`
      const key = `${prefix}key-${w}-${n}`
      if (n % 3 === 0) await note('create', postPet(url, apiKey, name), { name })
      else if (n % 3 === 1) await note('keyed', postPet(url, apiKey, name, key), { name, key })
      else
        await note('list', { url: `${url}/v1/pets?limit=20`, headers: { Authorization: `Bearer ${apiKey}` } })
      await pause(o.pauseMs ?? 10)
    }
  }
  const ready = async () => {
    while (!stopped) {
      await note('ready', { url: `${url}/readyz` })
      await pause(o.readyEveryMs ?? 100)
    }
  }
  const loops = [...Array.from({ length: o.writers ?? 4 }, (_, w) => writer(w)), ready()]
  return {
    samples,
    /** Stops every loop once its request is answered; resolves with every sample. */
    stop: async () => {
      stopped = true
      await Promise.all(loops)
      return samples
    },
  }
}
