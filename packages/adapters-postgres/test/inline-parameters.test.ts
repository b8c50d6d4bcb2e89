import { describe, expect, it } from 'vitest'
import { inlineParameters } from '../src/runner/inline-parameters.js'
import { perTransactionSettings, withSettingsFirst } from '../src/runner/session-settings.js'
import { useFreshDatabases } from './support/use-fresh-databases.js'

describe('statements sent in one message behind a transaction pooler', () => {
  const { open } = useFreshDatabases()

  it('replaces each $n by its value, and no $n inside quotes, identifiers or comments', () => {
    expect(
      inlineParameters(`SELECT $1, '$1', "a$2", $10 -- $2\n, $2 /* $1 */`, [
        'x',
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        'ten',
      ]),
    ).toBe(`SELECT 'x', '$1', "a$2", 'ten' -- $2\n, '2' /* $1 */`)
    expect(inlineParameters(`SELECT 'it''s $1', $1`, ['y'])).toBe(`SELECT 'it''s $1', 'y'`)
    expect(() => inlineParameters('SELECT $2', ['only one'])).toThrow(/no value for \$2/)
    // Without values nothing is replaced, as in a migration's dollar-quoted body.
    expect(inlineParameters('SELECT $1', [])).toBe('SELECT $1')
  })

  it('leaves the statements that begin or end a transaction as they are', () => {
    const settings = perTransactionSettings({
      statement_timeout: 1,
      lock_timeout: 2,
      idle_in_transaction_session_timeout: 3,
    })
    for (const text of [
      'begin',
      'COMMIT',
      ' rollback',
      'savepoint a',
      'release a',
      'start transaction isolation level serializable',
    ])
      expect(withSettingsFirst(settings, text, [])).toBeUndefined()
    expect(withSettingsFirst(settings, 'select $1', [1])).toBe(
      "SELECT set_config('statement_timeout', '1', true), set_config('lock_timeout', '2', true), " +
        "set_config('idle_in_transaction_session_timeout', '3', true); select '1'",
    )
  })

  it('means what the same statement with parameters means, for every kind of value the adapters send', async () => {
    const { pool } = await open()
    const cases: Array<[string, unknown]> = [
      ['$1::text', `it's a "quote" \\ and a backslash; DROP TABLE pets; --`],
      ['$1::text', 'ünïcödé 🐈 \n new line'],
      ['$1::text', null],
      ['$1::bigint', '9007199254740993'],
      ['$1::int', 42],
      ['$1::float8', 0.1],
      ['$1::boolean', true],
      ['$1::timestamptz', new Date('2026-11-22T12:34:56.789Z')],
      ['$1::bytea', Buffer.from([0, 1, 2, 255])],
      ['$1::text[]', ['a"b', 'c\\d', null, "e'f", '']],
      ['$1::int8[]', ['1', '2', '3']],
      ['$1::jsonb', { a: [1, "it's"] }],
    ]
    for (const [expression, value] of cases) {
      const text = `SELECT ${expression} AS v, pg_typeof(${expression})::text AS t`
      const withParameters = (await pool.query(text, [value])).rows
      const inlined = (await pool.query(inlineParameters(text, [value]))).rows
      expect(inlined, `${expression} of ${JSON.stringify(value)}`).toEqual(withParameters)
    }
  })
})
