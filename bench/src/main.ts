#!/usr/bin/env node
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { InvalidRun } from './load.js'
import { parseOptions } from './options.js'
import { notesOf, renderReport } from './report.js'
import { runBench } from './run-bench.js'
import { withFlood } from './run-flood.js'
import { withPgBouncer } from './run-pgbouncer.js'

// pnpm bench [--smoke] …: see options.ts, and bench/README.md.
const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url))

const main = async () => {
  const options = parseOptions(process.argv.slice(2), process.env, RESULTS)
  if (typeof options === 'string') return console.log(options)
  const report = await runBench(options, (line) => console.log(line))
  const earlier =
    options.out !== undefined && existsSync(options.out) ? readFileSync(options.out, 'utf8') : ''
  const markdown = await withFlood(
    await withPgBouncer(renderReport(report, notesOf(earlier)), options, report, console.log),
    options,
    report,
    console.log,
  )
  console.log(`\n${markdown}`)
  if (options.out !== undefined) {
    writeFileSync(options.out, markdown)
    console.log(`\nwritten to ${options.out}`)
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof InvalidRun ? `benchmark refused: ${error.message}` : error)
  process.exit(1)
})
