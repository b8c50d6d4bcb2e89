import type { ApiKeyRecord } from '@pets/domain'
import { describe, expect, it } from 'vitest'
import { alignColumns } from '../src/commands/columns.js'
import { usageTable } from '../src/commands/usage-table.js'

// Names as `keys create --name` accepts them, and the columns a terminal gives each.
const DOG = '🐶\u200d🦺 dog' // a ZWJ sequence of two emoji (5 code units, 1 grapheme), then ' dog': 6 columns
const SERVICE_DOG = '🐕\u200d🦺' // an RGI emoji ZWJ sequence: 2 columns
const THUMB = '👍🏽' // with a skin tone: 2 columns
const FLAG = '🇫🇷' // two regional indicators: 2 columns
const INU = '犬の名前' // East Asian wide: 2 columns each, 8
const CAFE = 'cafe\u0301' // a combining acute accent: none, 4
const HANKAKU = 'ｲﾇ' // halfwidth katakana: 1 column each, 2

const spaces = (n: number) => ' '.repeat(n)

describe('columns aligned as a terminal shows them', () => {
  it('pads each cell by its display width, not its UTF-16 length', () => {
    const names = [DOG, SERVICE_DOG, THUMB, FLAG, INU, CAFE, HANKAKU, 'plain']
    const widths = [6, 2, 2, 2, 8, 4, 2, 5]
    const lines = alignColumns([['NAME', 'NEXT'], ...names.map((name) => [name, 'x'])])
    expect(lines).toEqual([
      `NAME${spaces(4)}  NEXT`,
      ...names.map((name, i) => `${name}${spaces(8 - widths[i]!)}  x`),
    ])
  })

  it('trims the end of each line, and takes rows of any length', () => {
    expect(alignColumns([['a', 'bb', ''], ['ccc']])).toEqual(['a    bb', 'ccc'])
    expect(alignColumns([])).toEqual([])
  })

  it('keeps the rows of keys usage aligned when a name is emoji', () => {
    const record = (id: string, name: string): ApiKeyRecord => ({
      id,
      name,
      createdAt: new Date('2026-01-01T00:00:00Z'),
      revokedAt: null,
      lastUsedAt: null,
    })
    expect(usageTable([record('1', DOG), record('2', 'plain')], [], ['getPet'])).toEqual([
      'ID  NAME    LAST USED  getPet CALLS  LAST getPet',
      `1   ${DOG}  -          0             -`,
      '2   plain   -          0             -',
    ])
  })
})
