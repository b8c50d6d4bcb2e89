import type { CallsIn, PostgresAdapterOptions, RunPrepared, Statement } from '../runner/index.js'

const READ: Statement<string> = {
  text: `SELECT current_setting('lock_timeout') AS lock_timeout`,
  columns: ['lock_timeout'],
  decode: ([value]) => value ?? '0',
}
const RESTORE: Statement<string> = {
  text: `SELECT set_config('lock_timeout', $1, true) AS lock_timeout`,
  columns: ['lock_timeout'],
  decode: ([value]) => value ?? '0',
}

/**
 * `run` for a caller's transaction: our writes set their lock timeout with set_config(…, true), which holds
 * to the end of the transaction, so the caller's own is read before each statement and set again after it
 * succeeded (a failed one ends the transaction anyway). The caller's later statements wait as it chose.
 */
export const keepingCallersLockTimeout =
  (run: RunPrepared): RunPrepared =>
  (statement, values, done) =>
    run(READ, [], (readError, [callers]) => {
      if (readError !== undefined) return done(readError, [])
      run(statement, values, (error, rows, on) => {
        if (error !== undefined) return done(error, rows, on)
        run(RESTORE, [callers ?? '0'], (restoreError) => done(restoreError, restoreError ? [] : rows, on))
      })
    })

/**
 * How an insert runs where it takes the ordering lock (PET_INSERT_LOCK) alone, as releases before 0008 did;
 * undefined where it registers an intent and takes that lock shared. Alone in a caller's transaction (`db`),
 * where no one sees an intent before it commits, keeping the caller's lock timeout; alone with `insertsAlone`,
 * beside such a release, whose listings read no intents.
 */
export const orderingLockAlone = (
  db: CallsIn,
  options: Pick<PostgresAdapterOptions, 'insertsAlone'>,
  run: RunPrepared,
): RunPrepared | undefined =>
  db.isTransaction ? keepingCallersLockTimeout(run) : options.insertsAlone === true ? run : undefined
