// Plays the cases of a master seed against a service, `concurrency` at a time: the loop of a run (run.mjs) and
// of the CI smoke (smoke.mjs). Case i is buildCase(caseSeed(master, i)): the same cases in the same order on
// every machine; how many are played in the time given depends on the machine.
import { setTimeout as sleep } from 'node:timers/promises'
import { buildCase } from './case.mjs'
import { playCase } from './connection.mjs'
import { caseSeed } from './prng.mjs'

/**
 * Starts cases while `going()` holds, keeping `concurrency` of them active (a case is active until its bytes
 * are written and its answers in) and at most 1,500 open; then waits up to `drainMs` for the open ones to
 * close. `onStart(seed, c)` and `onDone(seed, c, state)` see each case; `onTick(open)` runs every loop turn.
 * Resolves with how many cases are still open.
 */
export const playSeeds = async ({
  port,
  env,
  master,
  concurrency,
  going,
  drainMs,
  hangMs,
  onStart,
  onDone,
  onTick,
}) => {
  let active = 0
  let open = 0
  let index = 0
  const startOne = () => {
    const seed = caseSeed(master, index++)
    const c = buildCase(seed, env)
    active++
    open++
    onStart?.(seed, c)
    const { released, done } = playCase(c, port, hangMs === undefined ? {} : { hangMs })
    released.then(() => active--)
    done.then((state) => {
      open--
      onDone(seed, c, state)
    })
  }
  while (going()) {
    while (active < concurrency && open < 1500) startOne()
    await sleep(2)
    onTick?.(open)
  }
  const waitStart = Date.now()
  while (open > 0 && Date.now() - waitStart < drainMs) await sleep(200)
  return open
}
