import type { Pet } from '@pets/domain'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { PetsClientFailure, type PetsClientError } from './client-errors.js'
import type { PetsPage } from './pets-client.js'

// CONTRACT: a walk of next links gives every pet once, in increasing id order. A server or proxy that
// links back (to a page seen, or to pets not after the last) would have allPets loop or repeat.
const goesBack = (reason: string): PetsClientFailure =>
  new PetsClientFailure({ _tag: 'UndecodableResponse', status: 200, reason, requestId: undefined })

/** Every pet from the page at `url` on, following next links; a failure is thrown as a PetsClientFailure. */
export async function* walkPages(
  listPage: (url: string) => TE.TaskEither<PetsClientError, PetsPage>,
  firstUrl: string,
): AsyncIterableIterator<Pet> {
  let url: string | undefined = firstUrl
  const seen = new Set<string>()
  let lastId = 0
  while (url !== undefined) {
    if (seen.has(url)) throw goesBack(`the next link leads back to a page already read: ${url}`)
    seen.add(url)
    const page = await listPage(url)()
    if (E.isLeft(page)) throw new PetsClientFailure(page.left)
    for (const pet of page.right.pets) {
      if (pet.id <= lastId) throw goesBack(`pet ${pet.id} came after pet ${lastId}: ids must increase`)
      lastId = pet.id
      yield pet
    }
    url = page.right.next?.href
  }
}
