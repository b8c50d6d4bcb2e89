import * as E from 'fp-ts/lib/Either.js'
import { expect } from 'vitest'
import { MAX_BODY_BYTES } from '../src/body/read-json-body.js'
import { repeatedMember } from '../src/body/repeated-member.js'
import { describeLinearTime, type Hostile, jsonBody, parsed, stringCases } from './support/linear-time.js'

// How many times `unit` stands in `run`.
const unitsIn = (run: string, unit: string) => run.length / unit.length

const members = [
  ...['"a":1,', '"a":{"a":[1]},'].flatMap((unit) =>
    stringCases(
      'the member again and again',
      [unit],
      (run) => `{${run}"b":2}`,
      repeatedMember,
      (_text, run) => (unitsIn(run, unit) >= 2 ? 'a' : undefined),
    ),
  ),
  ...stringCases(
    'members whose names have escapes',
    ['"k\\u0041":1,'],
    (run) => `{${run}"b":2}`,
    repeatedMember,
    (_text, run) => (unitsIn(run, '"k\\u0041":1,') >= 2 ? 'kA' : undefined),
  ),
  ...stringCases(
    'backslashes in a name given twice',
    ['\\\\'],
    (run) => `{"${run}":1,"${run}":2}`,
    repeatedMember,
    (_text, run) => JSON.parse(`"${run}"`) as string,
  ),
  ...stringCases(
    'nested objects with the same member',
    ['{"a":1},', '[{"a":1}],'],
    (run) => `{"x":[${run}{}],"a":2}`,
    repeatedMember,
    () => undefined,
  ),
  ...stringCases(
    'names in a top-level array',
    ['"a",', '{"a":1},"a",'],
    (run) => `[${run}"a"]`,
    repeatedMember,
    () => undefined,
  ),
  ...stringCases(
    'escaped quotes around a name in a string',
    ['\\"a\\":1,'],
    (run) => `{"a":"${run}","b":1}`,
    repeatedMember,
    () => undefined,
  ),
]

// The texts of linear-time.property.test.ts whose run repeats a member, sent to readJsonBody: refused once
// the run gives the member twice, unless the body is too large.
const refused = (name: string) =>
  E.left({
    _tag: 'RefusedJsonBody',
    issue: { field: name, problem: 'is given more than once' },
    repeated: name,
    body: expect.objectContaining({ value: expect.anything() }),
  })
const REPEATING: ReadonlyArray<readonly [string, string, (run: string) => string, string, number]> = [
  ['members whose keys have escapes', '"k\\u0041":1,', (run) => `{${run}"categoryId":2}`, 'kA', 2],
  ['the member again and again', '"categoryId":0.5,', (run) => `{${run}"categoryId":3}`, 'categoryId', 1],
]
const bodies: ReadonlyArray<Hostile> = REPEATING.map(([where, unit, text, name, from]) => ({
  where,
  unit,
  call: (run) => jsonBody('application/json', text(run)),
  answer: (run) =>
    unitsIn(run, unit) < from || Buffer.byteLength(text(run)) > MAX_BODY_BYTES
      ? parsed(text(run))
      : refused(name),
}))

describeLinearTime([
  ['repeatedMember (repeated-member.ts)', members],
  ['readJsonBody (read-json-body.ts), on members given again', bodies],
])
