// What writing a Pet and a page of pets as JSON costs, by each way of writing it (issue 27): the
// wire's own encodePet/encodePets (whatever dist holds), fast-json-stringify compiled from the same
// JSON Schema the OpenAPI document publishes, JSON.stringify of a copy holding the four fields,
// a template, and bare JSON.stringify of the pet (the reference: it writes whatever the object
// holds, so it is byte-equal only because these pets are made in the wire's order, as both stores
// make them). Not a test: no test runner picks it up. Build first, then run it:
//   pnpm --filter @pets/wire run build && node packages/wire/bench/serializers.mjs [--rounds=30]
// It first checks that every candidate writes the same bytes as JSON.stringify(PetBody.encode(pet))
// for pets whose names need escaping, then times each candidate for one pet, 20 pets and 100 pets:
// the candidates in turn within each round (the order rotating), so a slower moment of a shared
// machine falls on all of them. Each figure is µs per call: the median of the rounds, their range,
// and the median over rounds of the ratio to the fastest candidate in the same round.
import { createRequire } from 'node:module'

const require = createRequire(new URL('../package.json', import.meta.url))
const fastJson = require('fast-json-stringify')
const wire = await import('../dist/index.js')
const { PetBody, PetsBody, jsonSchemaOf } = wire

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 30)
// About 10 ms of work per candidate and size in a round: short, so that a burst of another
// process's work falls on one or two candidates of one round, which the median leaves out.
const CALLS = { 1: 25_000, 20: 2_000, 100: 400 }

const copy = (p) => ({ id: p.id, name: p.name, categoryId: p.categoryId, status: p.status })
const template = (p) =>
  `{"id":${p.id},"name":${JSON.stringify(p.name)},"categoryId":${p.categoryId},"status":"${p.status}"}`
const templateList = (pets) => {
  let json = '['
  for (let i = 0; i < pets.length; i++) json += (i === 0 ? '' : ',') + template(pets[i])
  return `${json}]`
}
const fjsPet = fastJson(jsonSchemaOf(PetBody))
const fjsPets = fastJson(jsonSchemaOf(PetsBody))

// Each candidate: [its name, how it writes one pet, how it writes a list].
const candidates = [
  [
    // Before issue 27 the wire's writers were compiled from the JSON Schema (compileSerializer).
    typeof wire.compileSerializer === 'function' ? 'wire (compiled serializer)' : 'wire encodePet(s)',
    wire.encodePet,
    wire.encodePets,
  ],
  ['fast-json-stringify 7.3.6', fjsPet, fjsPets],
  ['JSON.stringify of a copy', (p) => JSON.stringify(copy(p)), (ps) => JSON.stringify(ps.map(copy))],
  ['template + JSON.stringify(name)', template, templateList],
  ['bare JSON.stringify (reference)', (p) => JSON.stringify(p), (ps) => JSON.stringify(ps)],
]

const STATUSES = ['available', 'pending', 'sold']
// As the stores make them: a fresh object of the four fields, in the wire's order.
const aPet = (i, name) => ({ id: i, name, categoryId: 1 + (i % 7), status: STATUSES[i % 3] })
const pageOf = (n, nameOf) => Array.from({ length: n }, (_, i) => aPet(1_000 + i, nameOf(i)))

// Names that need escaping, and the largest ids: every candidate must write exactly the codec's JSON.
const awkward = [
  'say "hi"',
  'back\\slash',
  'tab\tnew\nline',
  '\u0001\u001f\u007f',
  'é 🐈 ü',
  '\u2028\u2029',
  ' x ',
]
const checks = [
  ...awkward.map((name, i) => aPet(i + 1, name)),
  { id: Number.MAX_SAFE_INTEGER, name: 'max', categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' },
]
for (const [name, one, list] of candidates) {
  for (const pet of checks)
    if (one(pet) !== JSON.stringify(PetBody.encode(pet)))
      throw new Error(`${name} writes ${one(pet)} for ${JSON.stringify(pet)}`)
  for (const n of [0, 1, 20, 100]) {
    const page = pageOf(n, (i) => awkward[i % awkward.length])
    if (list(page) !== JSON.stringify(PetsBody.encode(page))) throw new Error(`${name} differs on ${n} pets`)
  }
}

// Plain names, as a listing mostly has.
const inputs = { 1: aPet(7, 'Rex 7'), 20: pageOf(20, (i) => `Rex ${i}`), 100: pageOf(100, (i) => `Rex ${i}`) }
let sink = 0
const timeUs = (write, input, calls) => {
  const started = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) sink += write(input).length
  return Number(process.hrtime.bigint() - started) / 1_000 / calls
}

const sizes = [1, 20, 100]
const runs = new Map(candidates.map(([name]) => [name, new Map(sizes.map((n) => [n, []]))]))
// Round 0 warms every candidate up and is not counted.
for (let round = 0; round <= ROUNDS; round++)
  for (const n of sizes)
    for (let k = 0; k < candidates.length; k++) {
      const [name, one, list] = candidates[(k + round) % candidates.length]
      const us = timeUs(n === 1 ? one : list, inputs[n], CALLS[n])
      if (round > 0) runs.get(name).get(n).push(us)
    }

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const fmt = (us) => (us < 10 ? us.toFixed(3) : us.toFixed(2))
console.log(`node ${process.version}; µs per call, median of ${ROUNDS} alternating rounds [min–max];`)
console.log('× the fastest in the same round, and × bare JSON.stringify in the same round (medians)')
for (const n of sizes) {
  const all = candidates.map(([name]) => runs.get(name).get(n))
  const reference = all[candidates.length - 1]
  console.log(`\n${n === 1 ? 'one pet' : `a page of ${n} pets`} (${CALLS[n]} calls a round)`)
  for (const [i, [name]] of candidates.entries()) {
    const xs = all[i]
    const toFastest = xs.map((us, r) => us / Math.min(...all.map((ys) => ys[r])))
    const toReference = xs.map((us, r) => us / reference[r])
    console.log(
      `  ${name.padEnd(32)} ${fmt(median(xs)).padStart(6)} [${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}]` +
        `  ×${median(toFastest).toFixed(2)}  ×${median(toReference).toFixed(2)}`,
    )
  }
}
if (sink === 0) console.log('')
