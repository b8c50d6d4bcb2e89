import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configurationTable } from '../src/config.js'

const README = new URL('../../../README.md', import.meta.url)

// The rows of the table under "## Configuration": from its header to the first line that is not a row.
const tableInReadme = (): ReadonlyArray<string> => {
  const lines = readFileSync(README, 'utf8').split('\n')
  const section = lines.indexOf('## Configuration')
  const header = lines.findIndex((line, i) => i > section && line.startsWith('| Variable |'))
  if (section === -1 || header === -1) throw new Error('README.md has no table under "## Configuration"')
  const end = lines.findIndex((line, i) => i > header && !line.startsWith('|'))
  return lines.slice(header, end === -1 ? undefined : end)
}

describe("the README's table of environment variables", () => {
  it('is the table of apps/api/src/environment, row for row', () => {
    expect(
      tableInReadme(),
      'README.md, "Configuration", differs from the variables of apps/api/src/environment (- as the code ' +
        'says, + as README.md says): after `pnpm build`, `node apps/api/scripts/configuration-table.mjs --write` ' +
        'writes the table again',
    ).toEqual(configurationTable().split('\n'))
  })
})
