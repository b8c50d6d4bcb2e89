import type { Clock } from '@pets/domain'

/**
 * The machine's clock, or, given `startAt`, a clock that starts at that instant and runs on at
 * the machine's pace (how CLOCK_NOW lets the sunset of an operation be tried from outside).
 */
export const createSystemClock = (startAt?: Date): Clock => {
  if (startAt === undefined) return { now: () => new Date() }
  const offset = startAt.getTime() - Date.now()
  return { now: () => new Date(Date.now() + offset) }
}
