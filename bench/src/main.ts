#!/usr/bin/env node
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LAB_DEFAULTS, LABS, runLab } from './labs.js'
import { InvalidRun } from './load.js'
import { parseOptions } from './options.js'
import { startRun } from './run-header.js'
import { runSuite } from './run-suite.js'
import { renderSuite } from './suite-report.js'

// pnpm bench [--smoke] …: the targets, written to bench/RESULTS.md.
// pnpm bench:<lab> […]: an investigation, written to bench/labs/<lab>.md. See bench/README.md.
const BENCH = fileURLToPath(new URL('..', import.meta.url))
const outOf = (lab: string | undefined) =>
  lab === undefined ? join(BENCH, 'RESULTS.md') : join(BENCH, 'labs', `${lab}.md`)

const main = async () => {
  const argv = process.argv.slice(2)
  const command = parseOptions(argv, process.env, outOf, LAB_DEFAULTS)
  if (typeof command === 'string') return console.log(command)
  const { lab, options } = command
  const log = (line: string) => console.log(line)
  const typed = [lab === undefined ? 'pnpm bench' : `pnpm bench:${lab}`, ...argv.filter((a) => a !== lab)]
  const run = startRun(typed.join(' '))
  const markdown =
    lab === undefined
      ? renderSuite(await runSuite(options, run, log))
      : await runLab(LABS[lab]!, options, run, log)
  console.log(`\n${markdown}`)
  if (options.out !== undefined) {
    mkdirSync(dirname(options.out), { recursive: true })
    writeFileSync(options.out, markdown)
    console.log(`\nwritten to ${options.out}`)
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof InvalidRun ? `benchmark refused: ${error.message}` : error)
  process.exit(1)
})
