import { openFreshDatabase } from '@pets/adapters-postgres/testing'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, inject, it } from 'vitest'
import { MAIN, rememberSecret } from './support/test-service.js'

const exec = promisify(execFile)
const DOG = '🐶\u200d🦺 dog' // 5 UTF-16 code units of emoji, 2 columns on a terminal, then ' dog': 6
const DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/

describe('keys list with a name of emoji (the built bin)', () => {
  it('starts the CREATED column at the same terminal column on every row', async () => {
    const database = await openFreshDatabase(inject('postgres'))
    try {
      const cli = async (...args: Array<string>) =>
        (
          await exec(process.execPath, [MAIN, 'keys', ...args], {
            env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
          })
        ).stdout
      for (const name of [DOG, 'plain']) rememberSecret((await cli('create', '--name', name)).split('\n')[1]!)
      const lines = (await cli('list')).trimEnd().split('\n')
      const beforeCreated = lines.map((line) => line.slice(0, line.search(DATE)))
      // ID is 2 wide (its heading), NAME 6 (the dog's): each cell padded to it, then two spaces.
      expect(lines[0]).toMatch(/^ID {2}NAME {4}CREATED {19}LAST USED {2}REVOKED$/)
      expect(beforeCreated.slice(1)).toEqual([`1   ${DOG}  `, '2   plain   '])
    } finally {
      await database.close()
    }
  })
})
