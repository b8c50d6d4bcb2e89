import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { NODE_FLAGS } from '../src/node-flags.js'
import { pollUntil } from '@pets/domain/testing'
import { MAIN } from './support/child-service.js'
import { runBin } from './support/run-bin.js'

const ENV = { PATH: process.env.PATH ?? '', API_KEYS: 'bin-test-key-0123456789abcdef', PORT: '0' }
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string
}
// The service as tsc builds it, before the bundle: what `main.e2e` runs.
const UNBUNDLED = fileURLToPath(new URL('../dist/main.js', import.meta.url))

describe('the bin, run as a file of its own', () => {
  it('starts node with the flags of src/node-flags.ts (none), from its first line', async () => {
    expect(readFileSync(MAIN, 'utf8').split('\n', 1)[0]).toBe(
      NODE_FLAGS.length === 0 ? '#!/usr/bin/env node' : `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`,
    )
    const child = spawn(MAIN, [], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    try {
      await pollUntil('the listening line', () => output.includes('"listening"'), 20_000)
      // env replaced itself with node: the same process, whose command line holds the flags.
      const args = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')
      expect(args.slice(1, 1 + NODE_FLAGS.length)).toEqual([...NODE_FLAGS])
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('ends a command quietly, with status 0, when its reader stops reading', async () => {
    const child = spawn(MAIN, ['openapi'], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    // As `| head -c 1` does: read once, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
  })

  it('exports the document of production without its database or keys, but not without PUBLIC_BASE_URL', async () => {
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          MAIN,
          ['openapi'],
          { env: { PATH: ENV.PATH, APP_ENV: 'production', ...env } },
          (error, stdout, stderr) =>
            resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
        ),
      )
    const published = await run({ PUBLIC_BASE_URL: 'https://api.example.com/v1' })
    expect(published.code).toBe(0)
    expect(JSON.parse(published.stdout)).toMatchObject({
      servers: [{ url: 'https://api.example.com/v1', description: 'production' }],
    })
    const unnamed = await run({})
    expect(unnamed.code).toBe(2)
    expect(unnamed.stderr).toContain('APP_ENV=production needs PUBLIC_BASE_URL')
  })

  it('warns at start outside development when PUBLIC_BASE_URL is not set: its URLs would name this host', async () => {
    const child = spawn(MAIN, [], { env: { ...ENV, APP_ENV: 'staging' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    try {
      await pollUntil('the listening line', () => output.includes('"listening"'), 20_000)
      const warned = output
        .split('\n')
        .filter((line) => line.includes('PUBLIC_BASE_URL is not set in staging'))
      expect(warned).toHaveLength(1)
      expect(JSON.parse(warned[0]!)).toMatchObject({ level: 40 })
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('prints the version of @pets/api from its package.json, needing no valid configuration, and lists it in help', async () => {
    for (const args of [['version'], ['--version']])
      expect(await runBin(args, { PORT: 'eighty' }), args[0]).toEqual({
        code: 0,
        stdout: `${version}\n`,
        stderr: '',
      })
    expect((await runBin(['help'], {})).stdout).toContain('\nanimal-store version ')
    // Unbundled, where esbuild wrote no version in: read from package.json.
    const unbundled = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [UNBUNDLED, 'version'], { env: ENV }, (error, out) =>
        error ? reject(error) : resolve(out),
      ),
    )
    expect(unbundled).toBe(`${version}\n`)
  })

  it('names an unknown command so, whatever the variables say (not a refusal of the configuration)', async () => {
    for (const args of [['frobnicate'], ['version', 'extra'], ['migrate', 'now']]) {
      const run = await runBin(args, { PORT: 'eighty' })
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr).toMatch(new RegExp(`^animal-store: unknown command "${args.join(' ')}"; usage:\n`))
      // The commands' lines follow, once named.
      expect(run.stderr).toMatch(/; usage:\nanimal-store \[serve\] /)
    }
    // What keys is asked to do is read after the variables (which name the database), before any connection.
    for (const args of [['keys'], ['keys', 'frob']]) {
      const run = await runBin(args, {})
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr).toMatch(new RegExp(`^animal-store: unknown command "${args.join(' ')}"; usage:\n`))
      expect(run.stderr).toContain('animal-store keys revoke ID')
    }
  })

  it('names what a known command lacks or was given too much of, exit 2 (commands-usage.test.ts has each message)', async () => {
    for (const [args, said] of [
      [['keys', 'create'], 'keys create: needs --name NAME; usage:'],
      [['keys', 'list', 'extra'], 'keys list: takes no arguments, not "extra"; usage:'],
      [['openapi', '--out'], 'openapi: needs --out FILE, not "--out"; usage:'],
    ] as const) {
      const run = await runBin([...args], {})
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr.slice(0, said.length + 14), args.join(' ')).toBe(`animal-store: ${said}`)
      expect(run.stderr).not.toContain('unknown command')
    }
  })

  it("keeps the root's `pnpm start` standard output for the bin alone: the build's lines go to stderr", async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url))
    const { scripts } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      scripts: { start: string }
    }
    // A turbo that writes a banner on stdout, as turbo does; pnpm appends the arguments to the script.
    const bin = mkdtempSync(join(tmpdir(), 'fake-turbo-'))
    writeFileSync(join(bin, 'turbo'), '#!/bin/sh\necho "turbo banner"\n', { mode: 0o755 })
    const started = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(
        'sh',
        ['-c', `${scripts.start} version`],
        { cwd: root, env: { PATH: `${bin}:${ENV.PATH}` } },
        (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })),
      ),
    ).finally(() => rmSync(bin, { recursive: true }))
    expect(started).toEqual({ stdout: `${version}\n`, stderr: 'turbo banner\n' })
  })

  it("stops cleanly on a SIGTERM sent to `pnpm start`'s shell (the root's, and through pnpm apps/api's)", async () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url))
    const { scripts } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      scripts: { start: string }
    }
    const bin = mkdtempSync(join(tmpdir(), 'fake-turbo-'))
    writeFileSync(join(bin, 'turbo'), '#!/bin/sh\n', { mode: 0o755 })
    // pnpm hands a SIGTERM to the script's shell, as does whatever signals the root's: a shell that is
    // still there dies of it, and the service it started would run on, its shutdown never begun.
    const starts = {
      root: () =>
        spawn('sh', ['-c', scripts.start], { cwd: root, env: { ...ENV, PATH: `${bin}:${ENV.PATH}` } }),
      'apps/api': () =>
        spawn('pnpm', ['-s', 'start'], {
          cwd: fileURLToPath(new URL('..', import.meta.url)),
          env: { ...ENV, HOME: process.env.HOME ?? tmpdir() },
        }),
    }
    try {
      for (const [name, start] of Object.entries(starts)) {
        const child = start()
        let output = ''
        child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
        await pollUntil(`${name}: the listening line`, () => output.includes('"listening"'), 20_000)
        const { pid } = JSON.parse(output.split('\n').find((line) => line.includes('"listening"'))!) as {
          pid: number
        }
        child.kill('SIGTERM')
        try {
          await pollUntil(
            `${name}: the service's stopped line`,
            () => output.includes('"msg":"stopped"'),
            5_000,
          )
        } finally {
          try {
            process.kill(pid, 'SIGKILL') // the service, if the signal never reached it
          } catch {
            // stopped, as it should
          }
        }
      }
    } finally {
      rmSync(bin, { recursive: true })
    }
  })

  it('prints the OpenAPI document when run directly', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(MAIN, ['openapi'], { env: ENV }, (error, out) => (error ? reject(error) : resolve(out))),
    )
    expect(JSON.parse(stdout)).toMatchObject({ openapi: '3.1.0' })
  })
})
