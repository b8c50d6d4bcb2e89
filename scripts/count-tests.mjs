// Sums the vitest JSON reports of every workspace package into one closing line:
// "N passed, N failed". Exits non-zero when a test failed or no report was found.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { root, workspaceDirs } from './workspaces.mjs'

const reports = workspaceDirs()
  .map((dir) => join(dir, 'test-results.json'))
  .filter((file) => existsSync(file))

// --clean: remove the reports of an earlier run, so they are not counted again.
if (process.argv.includes('--clean')) {
  reports.forEach((file) => rmSync(file))
  process.exit(0)
}

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
    `${file.slice(root.length + 1)}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${note}`,
  )
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 || reports.length === 0 ? 1 : 0)
