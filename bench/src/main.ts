#!/usr/bin/env node
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { InvalidRun } from './load.js'
import { parseOptions, type BenchOptions } from './options.js'
import { notesOf, renderReport } from './report.js'
import { runBench } from './run-bench.js'
import { floodSection, runFlood } from './run-flood.js'
import { pgBouncerSection, runPgBouncer } from './run-pgbouncer.js'

// pnpm bench [--smoke] …: see options.ts, and bench/README.md.
const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url))

type Log = (line: string) => void
// Steps after runBench when the run includes PostgreSQL, each on a database of its own: a section
// of RESULTS.md each, in this order at its end.
const POSTGRES_SECTIONS: ReadonlyArray<(options: BenchOptions, log: Log) => Promise<string>> = [
  async (options, log) =>
    pgBouncerSection(await runPgBouncer(options, [randomBytes(24).toString('base64url')], log)),
  async (options, log) => floodSection(await runFlood(options, log)),
]

const main = async () => {
  const options = parseOptions(process.argv.slice(2), process.env, RESULTS)
  if (typeof options === 'string') return console.log(options)
  const report = await runBench(options, (line) => console.log(line))
  const earlier =
    options.out !== undefined && existsSync(options.out) ? readFileSync(options.out, 'utf8') : ''
  let markdown = renderReport(report, notesOf(earlier))
  if (report.modes.some((m) => m.mode === 'postgres'))
    for (const section of POSTGRES_SECTIONS)
      markdown = `${markdown.trimEnd()}\n\n${await section(options, console.log)}\n`
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
