// The CI smoke (apps/api/test/fuzz-smoke.e2e.test.ts): a fixed master seed played for a few seconds against a
// service already running on memory with the run's environment (service.mjs: RUN_ENV, MEMORY_API_KEYS, the
// pets of seedPets), judged as a run judges it, and failed only on what no timing explains: see README.
import { judge, raceable } from './judge.mjs'
import { playSeeds } from './play.mjs'
import { ENV_KEYS, SEEDED_PETS } from './service.mjs'

/**
 * The smoke's settings. A hang is 10 s without a byte or a close, not a run's 40 s: with HEADERS_TIMEOUT_MS
 * 2000 the service ends a connection on which nothing moved within 5 s (stalledAfterMs), a head not whole
 * within 3 s, a lingering close within 3 s, an idle one within 1 s; its 30 s request timeout never comes
 * first in these cases, whose bytes take 3.5 s at most to be sent.
 */
export const SMOKE = { master: 4242, seconds: 12, concurrency: 8, hangMs: 10_000, drainMs: 11_000 }

// What fails the smoke when a case finds it: a 5xx (checks.mjs leaves out the contract's 501), an answer the
// strict parser refuses, a HEAD's refusal with a body, a connection that hangs.
const FAILING = /^(status-5\d\d|bad-http|head-refusal-body|hang)$/
// Of those, what a raceable case (judge.mjs: bytes the service may read otherwise, a pipeline answered as the
// store is fast) may find without a defect: how its answers parse, and which request each answers (a 501 is
// the contract's for some requests only), depend on how the service read its bytes. A 500, 502, 503 or 504
// (none is set up: memory, no outage) or a hang is a defect in any case.
const RACEABLE = /^(status-501|bad-http|head-refusal-body)$/

/** A case in a line: its requests (method, target, what was changed), how its bytes went and how it ended. */
export const describeCase = (c) =>
  `${c.requests
    .map((q) => `${q.method} ${q.target.slice(0, 60)}${q.tags.length ? ` [${q.tags.join(' ')}]` : ''}`)
    .join('; ')}${c.preface ? ' after a preface' : ''}; bytes ${c.plan.mode}, client ${c.plan.end}`

/**
 * Plays SMOKE (or `settings` over it) against the service on `port` while `alive()` holds. Resolves with the
 * counts, `failures` ({ seed, kind, detail, case }), the findings of raceable cases it set aside by kind
 * (`excused`), the seeds open when `alive()` turned false (`suspects`) and how many cases were still open
 * after the drain (`stillOpen`).
 */
export const playSmoke = async ({ port, alive = () => true, ...settings }) => {
  const { master, seconds, concurrency, hangMs, drainMs } = { ...SMOKE, ...settings }
  const counts = { cases: 0, requests: 0, answers: 0, findings: {} }
  const failures = []
  const excused = {}
  const openSeeds = new Set()
  // The cases open when the service stopped answering: the suspects to replay.
  let suspects = []
  const deadline = Date.now() + seconds * 1000
  const started = Date.now()
  const stillOpen = await playSeeds({
    port,
    env: { port, keys: ENV_KEYS, seededPets: SEEDED_PETS },
    master,
    concurrency,
    hangMs,
    drainMs,
    going: () => {
      if (alive()) return Date.now() < deadline
      if (suspects.length === 0) suspects = [...openSeeds]
      return false
    },
    onStart: (seed, c) => {
      counts.cases++
      counts.requests += c.requests.length
      openSeeds.add(seed)
    },
    onDone: (seed, c, state) => {
      openSeeds.delete(seed)
      const { findings, finals } = judge(c, state)
      counts.answers += finals
      for (const { kind, detail } of findings) {
        counts.findings[kind] = (counts.findings[kind] ?? 0) + 1
        if (!FAILING.test(kind)) continue
        if (RACEABLE.test(kind) && raceable(c)) excused[kind] = (excused[kind] ?? 0) + 1
        else failures.push({ seed, kind, detail, case: describeCase(c) })
      }
    },
  })
  return {
    master,
    ...counts,
    failures,
    excused,
    stillOpen,
    suspects,
    ms: Date.now() - started,
  }
}
