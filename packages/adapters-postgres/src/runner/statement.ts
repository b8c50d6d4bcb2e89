import type pg from 'pg'
import { asError } from './as-error.js'
import type { SpanTarget } from './statement-spans.js'

/**
 * A request-path statement, made once: its SQL, its columns in order, and how a row of text fields becomes a
 * value. Run without pg's Query (ARCHITECTURE.md, 'Made by hand, on purpose', row "statement path").
 */
export type Statement<Row> = {
  readonly text: string
  /** What its span is named (`SELECT pets`), when reading the text would not tell (query-summary.ts). */
  readonly summary?: string
  readonly columns: ReadonlyArray<string>
  /** May throw: the run then fails with what it threw (a defect, not the store's fault). */
  readonly decode: (fields: ReadonlyArray<string | null>) => Row
}

/**
 * How a statement goes (pooler.ts): `name`d, prepared per connection (direct); unnamed (a pooler); or
 * `inline`, one simple-protocol message with the timeouts in front (a pooler that must be told them).
 */
export type Sending =
  | { readonly name?: string; readonly inline?: undefined }
  | { readonly name?: undefined; readonly inline: string }

/** pg's private `client.connection` (guard: test/private-api-guards.test.ts): the protocol's messages. */
type Connection = {
  readonly stream: { cork?: () => void; uncork?: () => void }
  readonly parsedStatements: Record<string, string | undefined>
  readonly submittedNamedStatements: Record<string, string | undefined>
  parse(config: { text: string; name: string; types: ReadonlyArray<number> }): void
  bind(config: { statement: string; values: ReadonlyArray<string | null> }): void
  describe(config: { type: 'P'; name: string }): void
  execute(config: { portal: string; rows: number }): void
  sync(): void
  query(text: string): void
}

type Field = { readonly name: string }

/** Ends a run: with the error it failed with, else with its rows. */
/** The end of a statement: its error or rows, and the connection it ran on when there was one. */
export type RunDone<Row> = (error: Error | undefined, rows: Array<Row>, on?: SpanTarget) => void

/** Runs a statement of the request path; calls `done` once, with the error or the decoded rows. */
export type RunPrepared = <Row>(
  statement: Statement<Row>,
  values: ReadonlyArray<string | null>,
  done: RunDone<Row>,
) => void

/** Runs `first`, then (if it succeeded) `statement` on the same connection; calls `done` once. */
export type RunPreparedAfter = <Row>(
  first: Statement<unknown>,
  firstValues: ReadonlyArray<string | null>,
  statement: Statement<Row>,
  values: ReadonlyArray<string | null>,
  done: RunDone<Row>,
) => void

/** Sends a statement on a connection already checked out; calls `done` once. */
export type SubmitStatement = <Row>(
  client: pg.ClientBase,
  statement: Statement<Row>,
  values: ReadonlyArray<string | null>,
  done: RunDone<Row>,
) => void

const columnsMatch = (fields: ReadonlyArray<Field>, columns: ReadonlyArray<string>) =>
  fields.length === columns.length && fields.every((field, i) => field.name === columns[i])

/**
 * One run, submitted as pg submits a query object (`client.query(submittable)`, as pg-cursor does). Its
 * columns are checked wherever the server describes them (at parse, and in the simple protocol).
 */
export class StatementRun<Row> {
  /** Read by pg: a name it forgets when the statement fails, and records when it parsed. */
  readonly name: string | undefined
  readonly text: string
  callback: RunDone<Row>
  private readonly rows: Array<Row> = []
  private failure: Error | undefined
  private otherColumns: ReadonlyArray<string> | undefined

  constructor(
    private readonly statement: Statement<Row>,
    private readonly values: ReadonlyArray<string | null>,
    private readonly sending: Sending,
    done: RunDone<Row>,
  ) {
    this.name = sending.name
    this.text = statement.text
    this.callback = done
  }

  submit(connection: Connection): null {
    const { name, inline } = this.sending
    if (inline !== undefined) {
      connection.query(inline)
      return null
    }
    connection.stream.cork?.()
    try {
      const parse = name === undefined || connection.parsedStatements[name] === undefined
      if (parse) {
        connection.parse({ text: this.text, name: name ?? '', types: [] })
        if (name !== undefined) connection.submittedNamedStatements[name] = this.text
      }
      connection.bind({ statement: name ?? '', values: this.values })
      // Described where it was parsed, so that its columns are checked once per connection.
      if (parse) connection.describe({ type: 'P', name: '' })
      connection.execute({ portal: '', rows: 0 })
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleRowDescription(message: { readonly fields: ReadonlyArray<Field> }): void {
    // In one simple-protocol message the settings' rows come first: only the last statement's count.
    this.rows.length = 0
    this.otherColumns = columnsMatch(message.fields, this.statement.columns)
      ? undefined
      : message.fields.map((field) => field.name)
  }

  handleDataRow(message: { readonly fields: ReadonlyArray<string | null> }): void {
    if (this.failure !== undefined || this.otherColumns !== undefined) return
    try {
      this.rows.push(this.statement.decode(message.fields))
    } catch (error) {
      this.failure = asError(error)
    }
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('a statement of the request path does not copy')
  }
  handleCopyData(): void {}

  /** The server's error (the statement ended; pg sends nothing more to this run), or the connection's. */
  handleError(error: Error): void {
    this.callback(error, this.rows)
  }

  handleReadyForQuery(): void {
    this.callback(
      this.failure ??
        (this.otherColumns === undefined
          ? undefined
          : new Error(
              `the statement answered the columns ${this.otherColumns.join(', ')}, ` +
                `not ${this.statement.columns.join(', ')}: ${this.text}`,
            )),
      this.rows,
    )
  }
}

/** Runs `statement` with `values` on `client`, as `sending` says; `done` is called once. */
export const submitStatement = <Row>(
  client: pg.ClientBase,
  statement: Statement<Row>,
  values: ReadonlyArray<string | null>,
  sending: Sending,
  done: RunDone<Row>,
): void => void client.query(new StatementRun(statement, values, sending, done) as unknown as pg.Submittable)
