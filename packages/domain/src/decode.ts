import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { describeErrors } from './checked.js'
import { invalidInput, type InvalidInput } from './errors.js'
import { NewPet } from './pet.js'

/** Decodes a value with a codec of the domain; each failure names its field. */
export const decodeWith =
  <A, O>(codec: t.Type<A, O, unknown>) =>
  (input: unknown): E.Either<InvalidInput, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => invalidInput(describeErrors(errors))),
    )

/** Checks an untrusted value against the invariants of a new pet. */
export const decodeNewPet = decodeWith(NewPet)
