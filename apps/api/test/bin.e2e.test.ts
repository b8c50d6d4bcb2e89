import { execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { NODE_FLAGS } from '../src/node-flags.js'
import { pollUntil } from '@pets/domain/testing'
import { MAIN } from './support/child-service.js'

const ENV = { PATH: process.env.PATH ?? '', API_KEYS: 'bin-test-key-0123456789abcdef', PORT: '0' }

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

  it('prints the OpenAPI document when run directly', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(MAIN, ['openapi'], { env: ENV }, (error, out) => (error ? reject(error) : resolve(out))),
    )
    expect(JSON.parse(stdout)).toMatchObject({ openapi: '3.1.0' })
  })
})
