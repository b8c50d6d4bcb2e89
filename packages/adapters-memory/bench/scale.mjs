// The in-memory store at scale, in-process: creates pets with an Idempotency-Key through the domain's use
// cases on createMemoryStorage of a build, and at each checkpoint tells the heap per pet (after a forced
// full GC), the GC pauses of the fill (perf_hooks 'gc' entries, by kind), the latency of the creates of
// the fill, of a list 20 and a list 100 with status=sold from a random `after`, of a get, and of a sweep
// of expired records (`forgetExpiredCreations`, nothing expired: what the service runs every
// IDEMPOTENCY_CLEANUP_MS). Not a test: it asserts nothing and no test runner picks it up. Build first:
//   node packages/adapters-memory/bench/scale.mjs [--a=/tmp/before/dist] [--b=packages/adapters-memory/dist]
// Each round runs every side in a fresh process, A then B, then B then A in the next, with --expose-gc and
// the V8 flag that the service's bin sets (--heap-growing-percent=30: apps/api/src/node-flags.ts).
// Options: --rounds=3, --pets=100000,500000,1000000 (the checkpoints; the last is the fill), --yield=64
// (creates between two turns of the event loop, as a server takes one turn per read of requests),
// --statuses=available,pending,sold (the fill's, in turn: without sold, list 100 sold lists a status no pet
// has, the walk the per-status index of memory-pet-repository.ts saves).
import { Buffer } from 'node:buffer'
import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { constants, PerformanceObserver, performance } from 'node:perf_hooks'
import { setImmediate } from 'node:timers'
import { fileURLToPath } from 'node:url'
import { alternateAndReport, option, quantile } from './lab-report.mjs'

const HERE = fileURLToPath(import.meta.url)
const PROBES = 2000

const summary = (values) => ({
  p50: quantile(values, 0.5),
  p99: quantile(values, 0.99),
  max: quantile(values, 1),
})

// The child: one build, one fill, a JSON line per checkpoint.
const child = async (dist, checkpoints, perTurn, statuses) => {
  const require = createRequire(join(HERE, '../../package.json'))
  const memory = await import(join(resolve(dist), 'index.js'))
  const domain = await import(require.resolve('@pets/domain'))
  const storage = memory.createMemoryStorage()
  let now = Date.now()
  const clock = { now: () => new Date(now) }
  const deps = { pets: storage.pets, creations: storage.creations, clock }
  const create = domain.createPet(deps)
  const list = domain.listPets(deps)
  const get = domain.getPet(deps)
  const forget = domain.forgetExpiredCreations(deps)
  const last = checkpoints[checkpoints.length - 1]
  const createMs = new Float64Array(last + PROBES * checkpoints.length)
  let pauses = []
  let observing = true
  new PerformanceObserver((entries) => {
    for (const e of entries.getEntries())
      if (observing && (e.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) === 0)
        pauses.push({ kind: e.detail.kind, ms: e.duration })
  }).observe({ entryTypes: ['gc'] })
  const turn = () => new Promise((ok) => setImmediate(ok))
  const settle = async () => {
    observing = false
    await turn()
    globalThis.gc()
    globalThis.gc()
    await turn()
    observing = true
  }
  const used = () => {
    const m = process.memoryUsage()
    return { heap: m.heapUsed, buffers: m.arrayBuffers, rss: m.rss }
  }
  let made = 0
  const createOne = async () => {
    const i = made++
    now += 1 // a millisecond a create: the records' instants differ, as they would under load
    const t0 = performance.now()
    const result = await create({
      pet: { name: 'Rex', categoryId: 1 + (i % 50), status: statuses[i % statuses.length] },
      once: {
        owner: 'env-1',
        key: Buffer.from(randomUUID(), 'latin1').toString('latin1'), // flat, as a header's value is
        fingerprint: createHash('sha256').update(`{"i":${i}}`).digest('hex'),
      },
    })()
    createMs[i] = performance.now() - t0
    if (result._tag !== 'Right') throw new Error(JSON.stringify(result))
  }
  const timed = async (task) => {
    const t0 = performance.now()
    const result = await task()
    if (result._tag !== 'Right') throw new Error(JSON.stringify(result))
    return performance.now() - t0
  }
  await settle()
  const base = used()
  let from = 0
  for (const target of checkpoints) {
    await settle()
    pauses = []
    const fillStart = performance.now()
    while (made < target) {
      for (let k = 0; k < perTurn && made < target; k++) await createOne()
      await turn()
    }
    const fillMs = performance.now() - fillStart
    await turn()
    const fillPauses = pauses
    const fillCreates = createMs.subarray(from, made)
    await settle()
    const after = used()
    const byKind = (kind) => fillPauses.filter((p) => (p.kind & kind) !== 0).map((p) => p.ms)
    const probe = async (task) => {
      const times = []
      for (let k = 0; k < PROBES; k++) times.push(await timed(task))
      return summary(times)
    }
    const random = () => Math.floor(Math.random() * made)
    const result = {
      pets: made,
      bytesPerPet: (after.heap + after.buffers - base.heap - base.buffers) / made,
      heapMiB: after.heap / 1048576,
      rssMiB: after.rss / 1048576,
      fillMs,
      gc: {
        all: {
          ...summary(fillPauses.map((p) => p.ms)),
          count: fillPauses.length,
          total: fillPauses.reduce((s, p) => s + p.ms, 0),
        },
        minor: {
          ...summary(byKind(constants.NODE_PERFORMANCE_GC_MINOR)),
          count: byKind(constants.NODE_PERFORMANCE_GC_MINOR).length,
        },
        major: {
          ...summary(byKind(constants.NODE_PERFORMANCE_GC_MAJOR)),
          count: byKind(constants.NODE_PERFORMANCE_GC_MAJOR).length,
        },
        incremental: {
          ...summary(byKind(constants.NODE_PERFORMANCE_GC_INCREMENTAL)),
          count: byKind(constants.NODE_PERFORMANCE_GC_INCREMENTAL).length,
        },
      },
      create: summary(fillCreates),
      list20: await probe(() => list({ limit: 20, after: random() })()),
      list100sold: await probe(() => list({ limit: 100, status: 'sold', after: random() })()),
      get: await probe(() => get(1 + random())()),
      sweepMs: await timed(() => forget()()),
    }
    // The probes' own creates, kept apart from the fill's.
    const probeStart = made
    for (let k = 0; k < PROBES; k++) {
      await createOne()
      if (k % perTurn === 0) await turn()
    }
    result.createProbe = summary(createMs.subarray(probeStart, made))
    from = made
    process.stdout.write(`${JSON.stringify(result)}\n`)
  }
}

const runChild = (dist, checkpoints, perTurn, statuses) =>
  new Promise((ok, fail) =>
    execFile(
      process.execPath,
      [
        '--expose-gc',
        '--heap-growing-percent=30',
        HERE,
        'child',
        dist,
        checkpoints.join(','),
        String(perTurn),
        statuses.join(','),
      ],
      { maxBuffer: 1 << 24 },
      (error, stdout, stderr) =>
        error
          ? fail(new Error(`${error.message}\n${stderr}`))
          : ok(
              stdout
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l)),
            ),
    ),
  )

const parent = async () => {
  const a = option('a', fileURLToPath(new URL('../dist', import.meta.url)))
  const b = option('b', undefined)
  const rounds = Number(option('rounds', '3'))
  const checkpoints = option('pets', '100000,500000,1000000').split(',').map(Number)
  const perTurn = Number(option('yield', '64'))
  const statuses = option('statuses', 'available,pending,sold').split(',')
  const sides = b === undefined ? { A: a } : { A: a, B: b }
  const rows = [
    ['bytes per pet (heap + buffers)', (r) => r.bytesPerPet, 0],
    ['RSS MiB', (r) => r.rssMiB, 0],
    ['fill s', (r) => r.fillMs / 1000, 1],
    ['GC pauses during the fill', (r) => r.gc.all.count, 0],
    ['GC pause p99 ms', (r) => r.gc.all.p99, 2],
    ['GC pause max ms', (r) => r.gc.all.max, 1],
    ['GC pauses total ms', (r) => r.gc.all.total, 0],
    ['minor GC p99 ms', (r) => r.gc.minor.p99, 2],
    ['major GC count', (r) => r.gc.major.count, 0],
    ['major GC max ms', (r) => r.gc.major.max, 1],
    ['create (fill) p99 ms', (r) => r.create.p99, 3],
    ['create (fill) max ms', (r) => r.create.max, 1],
    ['create p99 ms', (r) => r.createProbe.p99, 3],
    ['list 20 p99 ms', (r) => r.list20.p99, 3],
    ['list 100 sold p50 ms', (r) => r.list100sold.p50, 3],
    ['list 100 sold p99 ms', (r) => r.list100sold.p99, 3],
    ['get p99 ms', (r) => r.get.p99, 3],
    ['sweep ms (none expired)', (r) => r.sweepMs, 1],
  ]
  await alternateAndReport({
    sides,
    rounds,
    checkpoints,
    run: (dist) => runChild(dist, checkpoints, perTurn, statuses),
    said: (end) =>
      `${end.bytesPerPet.toFixed(0)} B/pet, gc p99 ${end.gc.all.p99.toFixed(2)} ms, max ${end.gc.all.max.toFixed(1)} ms`,
    rows,
  })
}

if (process.argv[2] === 'child')
  await child(
    process.argv[3],
    process.argv[4].split(',').map(Number),
    Number(process.argv[5]),
    process.argv[6].split(','),
  )
else await parent()
