// The fuzzer. `node run.mjs fuzz --store memory|postgres --port P --seconds S --master M --out DIR` starts the built
// service, plays seeded cases on 16 connections at a time for S seconds, and writes DIR/findings.jsonl,
// DIR/signatures.tsv and DIR/summary.json. `node run.mjs replay --port P --seed N [--store memory|postgres]`
// plays one case against a service already running (keys of service.mjs; on postgres pass --key3 the stored key)
// and prints what was sent and answered. `node run.mjs diff A B` compares the signatures of two runs.
import { Buffer } from 'node:buffer'
import { mkdirSync, writeFileSync, readFileSync, createWriteStream, renameSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { buildCase } from './case.mjs'
import { playCase } from './connection.mjs'
import { judge, raceable } from './judge.mjs'
import { playSeeds } from './play.mjs'
import { ENV_KEYS, SEEDED_PETS, processFigures, scrape, startService } from './service.mjs'
import { checkLog } from './log-check.mjs'
import { playSmoke } from './smoke.mjs'

const { positionals, values: opt } = parseArgs({
  allowPositionals: true,
  options: {
    store: { type: 'string', default: 'memory' },
    port: { type: 'string', default: '7601' },
    seconds: { type: 'string', default: '60' },
    master: { type: 'string', default: '1' },
    out: { type: 'string', default: '/tmp/hfuzz/run' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string' },
    key3: { type: 'string' },
    database: { type: 'string', default: 'hfuzz_pg' },
    verbose: { type: 'boolean', default: false },
  },
})
const port = Number(opt.port)

const envFor = (keys) => ({ port, keys, seededPets: SEEDED_PETS })

const fuzz = async () => {
  const out = opt.out
  mkdirSync(out, { recursive: true })
  const master = Number(opt.master)
  const service = await startService({ store: opt.store, port, out, database: opt.database })
  let exited
  let stopping = false
  // The cases open when the process ended by itself: the suspects a hunt replays one at a time.
  const openSeeds = new Set()
  const recent = []
  service.exit.then((e) => {
    if (stopping) return
    exited = e
    writeFileSync(`${out}/suspects.txt`, [...new Set([...openSeeds, ...recent])].join('\n') + '\n')
  })
  const env = envFor(service.keys)
  const timeline = [processFigures(service.pid)]
  const metricsBefore = await scrape(port)
  const findingsFile = createWriteStream(`${out}/findings.jsonl`)
  const sigFile = createWriteStream(`${out}/signatures.tsv`)
  const counts = { cases: 0, requests: 0, answers: 0, findings: {}, tags: {}, ends: {} }
  const first = {}
  const deadline = Date.now() + Number(opt.seconds) * 1000
  let lastReport = Date.now()
  const open = await playSeeds({
    port,
    env,
    master,
    concurrency: Number(opt.concurrency),
    going: () => Date.now() < deadline && !exited,
    drainMs: 60_000,
    onStart: (seed, c) => {
      counts.cases++
      counts.requests += c.requests.length
      counts.ends[c.plan.end] = (counts.ends[c.plan.end] ?? 0) + 1
      for (const q of c.requests)
        for (const t of q.tags)
          counts.tags[t.replace(/\d+$/, '')] = (counts.tags[t.replace(/\d+$/, '')] ?? 0) + 1
      openSeeds.add(seed)
      recent.push(seed)
      if (recent.length > 400) recent.shift()
    },
    onDone: (seed, c, state) => {
      openSeeds.delete(seed)
      const { findings, sig, finals } = judge(c, state)
      counts.answers += finals
      // eslint-disable-next-line no-control-regex
      sigFile.write(`${seed}\t${sig.replace(/[\x00-\x1f]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`)}\n`)
      for (const f of findings) {
        counts.findings[f.kind] = (counts.findings[f.kind] ?? 0) + 1
        if ((first[f.kind] ??= []).length < 20) first[f.kind].push({ seed, detail: f.detail })
        findingsFile.write(`${JSON.stringify({ seed, ...f })}\n`)
      }
    },
    onTick: (openNow) => {
      if (Date.now() - lastReport <= 10_000) return
      lastReport = Date.now()
      const fig = processFigures(service.pid)
      timeline.push(fig)
      console.log(
        `${new Date().toISOString()} cases ${counts.cases} requests ${counts.requests} answers ${counts.answers} open ${openNow} rss ${fig.rssKiB} KiB fds ${fig.fds} findings ${JSON.stringify(counts.findings)}`,
      )
    },
  })
  await sleep(3_000)
  const after = processFigures(service.pid)
  const metricsAfter = exited ? undefined : await scrape(port)
  timeline.push(after)
  stopping = true
  service.child.kill('SIGTERM')
  const ended = await Promise.race([service.exit, sleep(20_000).then(() => ({ timeout: true }))])
  findingsFile.end()
  sigFile.end()
  const log = checkLog(`${out}/service.log`, `${out}/service.err`, service.keys)
  const summary = {
    store: opt.store,
    master,
    seconds: Number(opt.seconds),
    ...counts,
    first,
    open,
    crashed: exited ?? null,
    exit: ended,
    timeline,
    metricsBefore,
    metricsAfter,
    log,
  }
  writeFileSync(`${out}/summary.json`, JSON.stringify(summary, null, 2))
  console.log(
    JSON.stringify(
      {
        cases: counts.cases,
        requests: counts.requests,
        answers: counts.answers,
        findings: counts.findings,
        exit: ended,
        crashed: exited ?? null,
        log: { lines: log.lines, bad: log.badLines, leaks: log.leaks, levels: log.levels },
      },
      null,
      1,
    ),
  )
}

const escape = (s, max = 6000) =>
  JSON.stringify(s.length > max ? `${s.slice(0, max)}…(${s.length} bytes)` : s)

const replay = async () => {
  const keys = [ENV_KEYS[0], ENV_KEYS[1], opt.key3 ?? ENV_KEYS[2]]
  const c = buildCase(Number(opt.seed), envFor(keys))
  console.log('plan', JSON.stringify(c.plan))
  for (const q of c.requests)
    console.log(
      `request ${q.kind} [${q.tags.join(' ')}]${q.ambiguous ? ' ambiguous' : ''}${q.truncated ? ' truncated' : ''}${q.protocol ? ' protocol' : ''}`,
    )
  console.log('sent', escape(c.wire))
  const { done } = playCase(c, port, { record: true })
  const state = await done
  console.log('received', escape(Buffer.concat(state.raw).toString('latin1')))
  console.log('close', state.closeKind, state.errors, `${state.closedAt - state.start} ms`)
  const { findings, sig } = judge(c, state)
  console.log('signature', sig)
  console.log('findings', JSON.stringify(findings, null, 1))
}

// Compares the signatures of two runs, case by case, but for cases raceable() (judge.mjs) leaves out.
const diff = () => {
  const [a, b] = positionals.slice(1).map(
    (p) =>
      new Map(
        readFileSync(p, 'utf8')
          .trim()
          .split('\n')
          .filter((l) => /^\d+\t/.test(l))
          .map((l) => l.split('\t')),
      ),
  )
  const kinds = {}
  let compared = 0
  for (const [seed, sa] of a) {
    const sb = b.get(seed)
    if (sb === undefined || sa.startsWith('~') || sb.startsWith('~')) continue
    if (raceable(buildCase(Number(seed), envFor(ENV_KEYS)))) continue
    compared++
    if (sa === sb) continue
    const [xa, xb] = [sa.split(' | '), sb.split(' | ')]
    let i = 0
    while (i < xa.length && xa[i] === xb[i]) i++
    const key = `#${i}: ${(xa[i] ?? '(none)').slice(0, 150)}  <>  ${(xb[i] ?? '(none)').slice(0, 150)}`
    ;(kinds[key] ??= []).push(seed)
  }
  console.log(`compared ${compared} cases; ${Object.values(kinds).flat().length} differ`)
  for (const [k, seeds] of Object.entries(kinds)
    .sort((x, y) => y[1].length - x[1].length)
    .slice(0, Number(opt.seconds === '60' ? 40 : opt.seconds)))
    console.log(`${seeds.length}\t${seeds.slice(0, 3).join(',')}\t${k}`)
}

// Starts the service as a run would, and keeps it running (for replays) until this process is stopped.
const serve = async () => {
  mkdirSync(opt.out, { recursive: true })
  const service = await startService({ store: opt.store, port, out: opt.out, database: opt.database })
  console.log(`serving ${opt.store} on ${port}, pid ${service.pid}; keys ${service.keys.join(' ')}`)
  const stop = () => service.child.kill('SIGTERM')
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  console.log('exit', await service.exit)
}

// Replays the suspects of a run that ended the process, one at a time on a fresh service each time it dies:
// the seeds after which it died.
const hunt = async () => {
  const seeds = readFileSync(positionals[1], 'utf8').trim().split('\n').map(Number)
  mkdirSync(opt.out, { recursive: true })
  let service = await startService({ store: opt.store, port, out: opt.out, database: opt.database })
  let dead = false
  const watch = (s) => s.exit.then(() => (dead = true))
  watch(service)
  for (const [i, seed] of seeds.entries()) {
    const c = buildCase(seed, envFor(service.keys))
    await playCase(c, port).done
    await sleep(20)
    if (dead) {
      console.log(`died after seed ${seed} (${i + 1} of ${seeds.length})`)
      renameSync(`${opt.out}/service.log`, `${opt.out}/service-${seed}.log`)
      dead = false
      service = await startService({ store: opt.store, port, out: opt.out, database: opt.database })
      watch(service)
    }
  }
  service.child.kill('SIGTERM')
  await service.exit
}

// The CI smoke by hand (apps/api/test/fuzz-smoke.e2e.test.ts plays it on the service it starts): the service
// on memory, SMOKE's cases (--master and --seconds when given), and what would fail that test.
const smoke = async () => {
  mkdirSync(opt.out, { recursive: true })
  const given = (name) => process.argv.some((a) => a.startsWith(`--${name}`))
  const service = await startService({ store: 'memory', port, out: opt.out })
  let ended
  service.exit.then((e) => (ended = e))
  const result = await playSmoke({
    port,
    alive: () => ended === undefined,
    ...(given('master') && { master: Number(opt.master) }),
    ...(given('seconds') && { seconds: Number(opt.seconds) }),
  })
  const endedByItself = ended ?? null
  service.child.kill('SIGTERM')
  const exit = await service.exit
  const log = checkLog(`${opt.out}/service.log`, `${opt.out}/service.err`, service.keys)
  console.log(
    JSON.stringify({ ...result, endedByItself, exit, leaks: log.leaks, stderr: log.stderr }, null, 1),
  )
}

const command = positionals[0]
if (command === 'hunt') await hunt()
else if (command === 'serve') await serve()
else if (command === 'fuzz') await fuzz()
else if (command === 'replay') await replay()
else if (command === 'diff') diff()
else if (command === 'smoke') await smoke()
else console.log('usage: run.mjs fuzz|replay|diff|serve|hunt|smoke …')
