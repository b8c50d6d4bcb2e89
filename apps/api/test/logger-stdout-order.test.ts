import { build } from 'esbuild'
import { execFile } from 'node:child_process'
import { constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

// createLogger must make process.stdout before its LineBuffer: node sets O_NONBLOCK on a pipe or socket it
// opens for process.stdout, and LineBuffer reads fd 1's flags once, when it is made (line-chunks.ts,
// writesWithoutWaiting). Made in the other order, writeChunksNow is off for good, silently. Only a process
// that has not made process.stdout yet shows it: a child, running logger.ts bundled as the service is.

const project = mkdtempSync(join(tmpdir(), 'logger-stdout-order-'))
afterAll(() => rmSync(project, { recursive: true, force: true }))

// The child: a logger as the workers of WEB_CONCURRENCY make one (4 KiB writes, fd 1 a pipe); one batch of
// lines past LOG_BUFFER_BYTES; whether its write was done before the call returned (`_writing`, which
// flushLogs reads), and fd 1's flags then, reported on stderr.
const CHILD = `
import { readFileSync } from 'node:fs'
import { pino } from 'pino'
import { createLogger, LOG_BUFFER_BYTES } from ${JSON.stringify(fileURLToPath(new URL('../src/log/logger.ts', import.meta.url)))}
const logger = createLogger({ logLevel: 'info', logFormat: 'json', webConcurrency: 2 })
const buffer = logger[pino.symbols.streamSym]
for (let bytes = 0; bytes <= LOG_BUFFER_BYTES; bytes += 100) logger.info({ padding: 'x'.repeat(60) }, 'line')
const writing = buffer._writing
const flags = readFileSync('/proc/self/fdinfo/1', 'latin1').split('\\n').find((l) => l.startsWith('flags:'))
process.stderr.write(JSON.stringify({ writing, flags }))
`

const runChild = async (): Promise<{ writing: boolean; flags?: string }> => {
  const bundled = await build({
    stdin: { contents: CHILD, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    // The CommonJS packages inside call require() for node's modules (as scripts/bundle.mjs does).
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
  })
  const file = join(project, 'child.mjs')
  writeFileSync(file, bundled.outputFiles[0]!.text)
  const stderr = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [file], { timeout: 20_000 }, (error, _stdout, stderr) =>
      error === null ? resolve(stderr) : reject(error),
    ),
  )
  return JSON.parse(stderr) as { writing: boolean; flags?: string }
}

const nonBlocking = (flags: string | undefined) =>
  flags !== undefined && (Number.parseInt(flags.slice(6).trim(), 8) & constants.O_NONBLOCK) !== 0

describe("the service logger on a pipe shared by WEB_CONCURRENCY's processes", () => {
  it('writes a batch at once (writeChunksNow): it made process.stdout before its LineBuffer', async () => {
    const { writing, flags } = await runChild()
    const why = nonBlocking(flags)
      ? `fd 1 is O_NONBLOCK now (${flags}) but was not when LineBuffer read it: createLogger (src/log/logger.ts) ` +
        'made its LineBuffer before process.stdout; make process.stdout first (stdoutIsReplaced does)'
      : `fd 1 is not O_NONBLOCK even now (${flags ?? 'flags unread'}): node no longer sets it (the O_NONBLOCK ` +
        'guard of private-api-guards.test.ts says so too)'
    expect(
      writing,
      "a batch of log lines was still being written when logger.info returned: LineBuffer's writeChunksNow is " +
        'off, one 4 KiB write a turn, and a worker at 10,000 lines/s falls behind its log (ARCHITECTURE.md, ' +
        `"Made by hand, on purpose", row "line buffer"); ${why}`,
    ).toBe(false)
  })
})
