import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { CategoryId, NewPet, PetData, PetName } from '../pet.js'
import type { Clock } from '../ports.js'

/** A valid new pet for tests; override any field. */
export const aNewPet = (
  overrides: Partial<{ name: string; categoryId: number; status: PetData['status'] }> = {},
) => ({ name: 'Rex', categoryId: 1, ...overrides }) as NewPet

/** A complete pet record without an id, as a repository receives it. */
export const aPetData = (overrides: Partial<PetData> = {}): PetData => ({
  name: 'Rex' as PetName,
  categoryId: 1 as CategoryId,
  status: 'available',
  ...overrides,
})

/** Runs a TaskEither and returns its right value; a left fails the test with the error in view. */
export const run = async <A>(task: TE.TaskEither<unknown, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`)
  return result.right
}

/** Runs a TaskEither and returns its left value; a right fails the test. */
export const runLeft = async <L>(task: TE.TaskEither<L, unknown>): Promise<L> => {
  const result = await task()
  if (E.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

/** A clock that says what the test sets. */
export const aClock = (start: Date | string): Clock & { set: (to: Date | string) => void } => {
  let now = new Date(start)
  return { now: () => new Date(now), set: (to) => (now = new Date(to)) }
}
