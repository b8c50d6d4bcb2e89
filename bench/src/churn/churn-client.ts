import { Agent, request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

/** One answer: a status, or the error of a request that got none (ECONNRESET, TIMEOUT…). */
type Answer = {
  readonly status?: number
  readonly error?: string
  readonly body: string
  readonly next?: string
}

/** Something a client saw other than the answer it asked for, and when it saw it (Date.now()). */
export type Unexpected = { readonly at: number; readonly kind: string; readonly outcome: string }

/** What the clients saw: every pet answered 201, and every walk of `next` links over them. */
export type ClientReport = {
  /** Pets answered 201 (with or without Idempotency-Key). */
  readonly confirmed: number
  readonly keyedCreations: number
  /** Idempotency keys whose 201s named two pets: a second pet made by a retry (must be 0). */
  readonly keysWithTwoPets: number
  /** Keyed creations that never got a 201 in 50 tries (must be 0). */
  readonly keyedGivenUp: number
  /** Answers by kind (`plain`, `keyed`, `retry`, `replay`, `page`) and outcome (status or error). */
  readonly outcomes: Readonly<Record<string, number>>
  readonly walks: {
    readonly done: number
    readonly missing: number
    readonly twice: number
    readonly disorder: number
  }
  /** The last walk, once the creators stopped: what it saw and what it missed of every 201. */
  readonly final: { readonly seen: number; readonly missing: number; readonly twice: number }
  readonly unexpected: ReadonlyArray<Unexpected>
}

// The `next` link of a page, as a path under /v1 (no regular expression over the answer).
const nextOf = (link: string | undefined): string | undefined => {
  const end = link?.indexOf('>; rel="next"') ?? -1
  if (link === undefined || end < 0) return undefined
  const url = link.slice(link.lastIndexOf('<', end) + 1, end)
  return `/v1${url.slice(url.indexOf('/pets?'))}`
}

/**
 * Runs `creators` loops that create pets, every other one with Idempotency-Key (a keyed creation that gets no
 * answer is sent again until it gets one; one in five that got its 201 is sent again too), and `walkers` loops
 * that walk `next` links from the first page, until `untilMs`; then walks once more. Checks that every pet
 * answered 201 before a walk began is in it, once, in id order, and that no key made two pets.
 */
export const runClients = async (
  base: string,
  key: string,
  untilMs: number,
  creators: number,
  walkers: number,
): Promise<ClientReport> => {
  const agent = new Agent({ keepAlive: true, maxSockets: creators + walkers })
  const started = Date.now()
  const outcomes: Record<string, number> = {}
  const unexpected: Array<Unexpected> = []
  const confirmed = new Map<number, number>()
  const byKey = new Map<string, Set<number>>()
  let keyedGivenUp = 0
  const note = (kind: string, answer: Answer, expected: number) => {
    const outcome = answer.error ?? String(answer.status)
    outcomes[`${kind} ${outcome}`] = (outcomes[`${kind} ${outcome}`] ?? 0) + 1
    if (answer.status !== expected) unexpected.push({ at: Date.now(), kind, outcome })
  }
  const send = (method: string, path: string, body?: object, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve) => {
      const data = body === undefined ? undefined : JSON.stringify(body)
      const all = { Authorization: `Bearer ${key}`, ...(data ? { 'Content-Type': 'application/json' } : {}) }
      const req = request(`${base}${path}`, { method, agent, headers: { ...all, ...headers } }, (res) => {
        const chunks: Array<Buffer> = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const next = nextOf(typeof res.headers.link === 'string' ? res.headers.link : undefined)
          const status = res.statusCode ?? 0
          resolve({ status, body: Buffer.concat(chunks).toString(), ...(next === undefined ? {} : { next }) })
        })
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ error: error.code ?? error.message, body: '' }),
        )
      })
      req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
      req.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message, body: '' }),
      )
      req.end(data)
    })
  const idOf = (answer: Answer) => (JSON.parse(answer.body) as { id: number }).id

  const create = async (c: number, n: number) => {
    const name = `${n % 2 === 0 ? 'k' : 'u'}-${started}-${c}-${n}`
    const body = { name, categoryId: 1 + (n % 7) }
    if (n % 2 === 1) {
      const answer = await send('POST', '/v1/pets', body)
      note('plain', answer, 201)
      if (answer.status === 201) confirmed.set(idOf(answer), Date.now())
      return
    }
    const ikey = { 'Idempotency-Key': `ik-${name}` }
    const ids = new Set<number>()
    byKey.set(name, ids)
    for (let attempt = 0; attempt < 50; attempt++) {
      const answer = await send('POST', '/v1/pets', body, ikey)
      note(attempt === 0 ? 'keyed' : 'retry', answer, 201)
      if (answer.status === 201) {
        ids.add(idOf(answer))
        confirmed.set(idOf(answer), Date.now())
        if (n % 5 !== 0) return
        const again = await send('POST', '/v1/pets', body, ikey)
        note('replay', again, 201)
        if (again.status === 201) ids.add(idOf(again))
        return
      }
      if (answer.status !== undefined && answer.status !== 409 && answer.status !== 503) break
      await sleep(answer.status === 409 ? 50 : 10)
    }
    keyedGivenUp++
  }

  const walks = { done: 0, missing: 0, twice: 0, disorder: 0 }
  const walk = async () => {
    const began = Date.now()
    const seen = new Set<number>()
    let last = 0
    let twice = 0
    for (let path: string | undefined = '/v1/pets?limit=100'; path !== undefined;) {
      let page = await send('GET', path)
      for (let tries = 0; page.status !== 200; tries++) {
        note('page', page, 200)
        if (tries === 50) throw new Error(`the page ${path} failed 50 times: ${page.error ?? page.status}`)
        await sleep(10)
        page = await send('GET', path)
      }
      note('page', page, 200)
      for (const { id } of JSON.parse(page.body) as Array<{ id: number }>) {
        if (seen.has(id)) twice++
        if (id <= last) walks.disorder++
        seen.add(id)
        last = id
      }
      path = page.next
    }
    const missing = [...confirmed].filter(([id, at]) => at < began && !seen.has(id)).length
    walks.done++
    walks.missing += missing
    walks.twice += twice
    return { seen: seen.size, missing, twice }
  }

  await Promise.all([
    ...Array.from({ length: creators }, async (_, c) => {
      for (let n = 0; Date.now() < untilMs; n++) await create(c, n)
    }),
    ...Array.from({ length: walkers }, async () => {
      while (Date.now() < untilMs) await walk()
    }),
  ])
  const final = await walk()
  agent.destroy()
  return {
    confirmed: confirmed.size,
    keyedCreations: byKey.size,
    keysWithTwoPets: [...byKey.values()].filter((ids) => ids.size > 1).length,
    keyedGivenUp,
    outcomes,
    walks,
    final,
    unexpected,
  }
}
