import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { keysCommand } from '../src/commands/keys.js'
import { openapiCommand } from '../src/commands/openapi.js'
import { UsageError } from '../src/commands/usage.js'
import { loadConfig } from '../src/config.js'

// What a command asked wrongly says, before any database is opened (main prints it after `animal-store: `,
// with exit status 2: bin.e2e.test.ts runs three of these through the built bin).
const loaded = loadConfig({})
if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '))
const config = loaded.right
const output = { print: () => {}, written: async () => {} }

const refusalOf = async (run: () => unknown): Promise<string> => {
  try {
    await run()
  } catch (error) {
    if (error instanceof UsageError) return error.message
    throw error
  }
  throw new Error('the command ran')
}

describe('a known command asked wrongly', () => {
  it.each([
    [['create'], 'keys create: needs --name NAME; usage:\n'],
    [['create', 'Rex'], 'keys create: needs --name NAME, not "Rex"; usage:\n'],
    [['create', '--nam', 'Rex'], 'keys create: needs --name NAME, not "--nam Rex"; usage:\n'],
    [['create', '--name', ''], 'keys create: --name '],
    [['list', 'extra'], 'keys list: takes no arguments, not "extra"; usage:\n'],
    [['usage', '--all'], 'keys usage: takes no arguments, not "--all"; usage:\n'],
    [['revoke'], 'keys revoke: needs one ID, a key\'s id as "keys list" shows it; usage:\n'],
    [
      ['revoke', '1', '2'],
      'keys revoke: needs one ID, a key\'s id as "keys list" shows it, not "1 2"; usage:\n',
    ],
    [['revoke', 'abc'], 'keys revoke: ID must be a key\'s id as "keys list" shows it, such as 3, not "abc"'],
  ])('keys %j says what it needs: %j', async (args, said) => {
    const message = await refusalOf(() => keysCommand(config, args, output))
    expect(message.slice(0, said.length)).toBe(said)
    if (said.endsWith('usage:\n')) expect(message).toContain('animal-store keys revoke ID')
  })

  it('keys of an action it does not have is an unknown command', async () => {
    expect(await refusalOf(() => keysCommand(config, ['frob'], output))).toMatch(
      /^unknown command "keys frob"; usage:\n/,
    )
  })

  it.each([
    [['--out'], 'openapi: needs --out FILE, not "--out"; usage:\n'],
    [['json'], 'openapi: takes --out FILE only, not "json"; usage:\n'],
    [['--out', 'a', 'b'], 'openapi: needs --out FILE, not "--out a b"; usage:\n'],
  ])('openapi %j says what it takes: %j', async (args, said) => {
    const message = await refusalOf(() => openapiCommand(config, args, () => {}))
    expect(message.slice(0, said.length)).toBe(said)
  })
})
