// The statement path (src/runner/statement.ts) against what it replaces, in one process and one run: the
// pets repository lists 20 pets through (a) the guarded pool's runner, which writes pg's protocol messages
// itself; (b) a runner on pg's own `Query` (`pool.query` with the statement named, so prepared once per
// connection, rows as arrays of text); (c) `fromKysely`, the embedders' path. Each round runs every
// variant for the same time, in turn, the order reversed every other round; it prints this process's CPU
// time per listing (what the path costs, and the figure a shared machine disturbs least) and listings
// per second, as medians with their ranges, and each variant against (a). Not a test: it asserts nothing.
// Build the package, then: node packages/adapters-postgres/bench/statement-path.mjs [--rounds=6]
// [--seconds=2] [--in-flight=16]; TEST_DATABASE_URL (or the local server) gives the database.
import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { createPostgresPetRepository, fromKysely } from '../dist/index.js'
import { openFreshDatabase, provideTestDatabase } from '../dist/testing/index.js'

const option = (name, fallback) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const ROUNDS = option('rounds', 6)
const SECONDS = option('seconds', 2)
const IN_FLIGHT = option('in-flight', 16)

const asText = { getTypeParser: () => (value) => value }
const nameOf = (text) => `q_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`

// pg's Query, named: prepared on each connection at its first run, described on every run.
const pgQueryRunner = (pool, runner) => {
  const runPrepared = (statement, values, done) =>
    pool
      .query({
        name: nameOf(statement.text),
        text: statement.text,
        values: [...values],
        rowMode: 'array',
        types: asText,
      })
      .then(
        ({ rows }) =>
          done(
            undefined,
            rows.map((fields) => statement.decode(fields)),
          ),
        (error) => done(error, []),
      )
  return { ...runner, runPrepared }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const admin = await provideTestDatabase()
const database = await openFreshDatabase(admin)
try {
  await database.pool.query(
    `INSERT INTO pets (name, category_id, status) SELECT 'pet ' || n, 1 + n % 7, 'available' FROM generate_series(1, 1000) n`,
  )
  const variants = {
    'statement path (shipped)': createPostgresPetRepository({ db: database.db, runner: database.runner }),
    "pg's Query, named": createPostgresPetRepository({
      db: database.db,
      runner: pgQueryRunner(database.pool, database.runner),
    }),
    'fromKysely (kysely + pg)': createPostgresPetRepository(fromKysely(database.db)),
  }
  const listing = { limit: 20, after: 0 }
  const drive = async (repository, ms) => {
    const until = performance.now() + ms
    let done = 0
    const loop = async () => {
      while (performance.now() < until) {
        const result = await repository.list(listing)()
        if (result._tag !== 'Right' || result.right.length !== 20) throw new Error('a listing failed')
        done += 1
      }
    }
    const cpu = process.cpuUsage()
    const started = performance.now()
    await Promise.all(Array.from({ length: IN_FLIGHT }, loop))
    const used = process.cpuUsage(cpu)
    return {
      cpuUs: (used.user + used.system) / done,
      perSecond: (done * 1000) / (performance.now() - started),
    }
  }
  for (const repository of Object.values(variants)) await drive(repository, 500)
  const figures = Object.fromEntries(Object.keys(variants).map((name) => [name, []]))
  const names = Object.keys(variants)
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const name of round % 2 === 0 ? names : [...names].reverse())
      figures[name].push(await drive(variants[name], SECONDS * 1000))
  }
  const [base] = names
  console.log(`list 20 through the pets repository, ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${SECONDS} s`)
  console.log('| variant | CPU µs per listing | listings/s | CPU vs shipped | rate vs shipped |')
  console.log('|---|---|---|---|---|')
  for (const name of names) {
    const rows = figures[name]
    const range = (key, digits) =>
      `${median(rows.map((r) => r[key])).toFixed(digits)} (${Math.min(...rows.map((r) => r[key])).toFixed(digits)}–${Math.max(...rows.map((r) => r[key])).toFixed(digits)})`
    const ratio = (key) => median(rows.map((r, i) => r[key] / figures[base][i][key])).toFixed(2)
    console.log(
      `| ${name} | ${range('cpuUs', 1)} | ${range('perSecond', 0)} | ${ratio('cpuUs')}× | ${ratio('perSecond')}× |`,
    )
  }
} finally {
  await database.close()
  await admin.teardown()
}
