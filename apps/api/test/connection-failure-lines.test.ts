import { isUnavailableError } from '@pets/adapters-postgres'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { operationalFailure } from '../src/operational-failure.js'

const loaded = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5999/animals' })
if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '))
const config = loaded.right
const failureOf = (command: string, message: string, cause?: Error) =>
  operationalFailure(new Error(message, cause === undefined ? {} : { cause }), {
    command,
    config,
    isUnavailableError,
  })

describe("the code of pg's own failures of a connection, which carry none", () => {
  it("is in the operator's line and the fatal line's code: refused TLS, a timeout, a broken client", () => {
    const target = 'PostgreSQL at postgres@127.0.0.1:5999/animals (DATABASE_URL)'
    expect(failureOf('keys list', 'The server does not support SSL connections')).toEqual({
      line: `keys list: ${target} refused TLS (sslmode): The server does not support SSL connections (08004)`,
      code: '08004',
      message: 'The server does not support SSL connections',
    })
    expect(
      failureOf('keys list', 'Connection terminated due to connection timeout', new Error('timeout expired')),
    ).toEqual({
      line: `keys list: ${target} cannot be reached: Connection terminated due to connection timeout (08001)`,
      code: '08001',
      message: 'Connection terminated due to connection timeout',
    })
    expect(failureOf('serve', 'Client has encountered a connection error and is not queryable')).toEqual({
      line: `serve: ${target} cannot be reached: Client has encountered a connection error and is not queryable (08006)`,
      code: '08006',
      message: 'Client has encountered a connection error and is not queryable',
    })
  })

  it("never stands in for a code the error has, PostgreSQL's or the system's", () => {
    const refused = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' })
    expect(operationalFailure(refused, { command: 'migrate', config, isUnavailableError })?.code).toBe(
      '57P01',
    )
  })
})
