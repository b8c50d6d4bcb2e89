// Sums the vitest JSON reports of every workspace package into one closing line:
// "N passed, N failed". Exits non-zero when a test failed or no report was found.
//
//   node scripts/count-tests.mjs               count the reports in the packages, and every kept pass
//   node scripts/count-tests.mjs --keep NAME   move the packages' reports aside as the pass NAME
//                                              (such as node-v24.21.0), so that a next pass of the
//                                              tests does not overwrite them; they are counted too
//   node scripts/count-tests.mjs --clean       remove the reports and kept passes of an earlier run
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { root, workspaceDirs } from './workspaces.mjs'

const REPORT = 'test-results.json'
// The kept passes: .test-results/NAME/<package dir>/test-results.json.
const kept = join(root, '.test-results')

const packageReports = () =>
  workspaceDirs()
    .map((dir) => join(dir, REPORT))
    .filter((file) => existsSync(file))

const reportsUnder = (dir) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file === REPORT || file.endsWith(`/${REPORT}`))
    .sort()
    .map((file) => join(dir, file))

const option = (name) => {
  const at = process.argv.indexOf(name)
  if (at === -1) return undefined
  const value = process.argv[at + 1]
  if (value === undefined || !/^[\w.-]+$/.test(value)) {
    console.error(`${name} takes a name of letters, digits, '.', '_' and '-'`)
    process.exit(2)
  }
  return value
}

if (process.argv.includes('--clean')) {
  packageReports().forEach((file) => rmSync(file))
  rmSync(kept, { recursive: true, force: true })
  process.exit(0)
}

const keep = option('--keep')
if (keep !== undefined) {
  const pass = join(kept, keep)
  rmSync(pass, { recursive: true, force: true })
  // Made even without a report: a pass that left none is counted as a broken run.
  mkdirSync(pass, { recursive: true })
  for (const file of packageReports()) {
    const target = join(pass, relative(root, file))
    mkdirSync(dirname(target), { recursive: true })
    renameSync(file, target)
  }
  process.exit(0)
}

/** Sums the reports of one pass, printing a line for each. */
const count = (label, base, reports) => {
  let passed = 0
  let failed = 0
  for (const file of reports) {
    const report = JSON.parse(readFileSync(file, 'utf8'))
    passed += report.numPassedTests ?? 0
    // A run that broke outside any test (a failed global setup, a file that did not load) counts once.
    const broken = report.success === false && (report.numFailedTests ?? 0) === 0 ? 1 : 0
    failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0) + broken
    const note = broken ? ' (the run itself failed)' : ''
    console.log(
      `${label}${relative(base, file)}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${note}`,
    )
  }
  return { passed, failed }
}

const passes = [
  ...(existsSync(kept) ? readdirSync(kept).sort() : []).map((name) => ({
    name,
    reports: reportsUnder(join(kept, name)),
  })),
  { name: undefined, reports: packageReports() },
].filter(({ name, reports }) => name !== undefined || reports.length > 0)

let passed = 0
let failed = 0
for (const { name, reports } of passes) {
  const sum = name === undefined ? count('', root, reports) : count(`[${name}] `, join(kept, name), reports)
  // A kept pass without any report did not run its tests: it counts as one failure.
  const empty = reports.length === 0 ? 1 : 0
  if (name !== undefined)
    console.log(`[${name}] ${sum.passed} passed, ${sum.failed + empty} failed${empty ? ' (no report)' : ''}`)
  passed += sum.passed
  failed += sum.failed + empty
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 || passes.length === 0 ? 1 : 0)
