import { describe } from 'vitest'
import { describeAuthentication } from './auth.js'
import { describeCreatePetBody, describeRefusedCreatePet } from './create-pet-body.js'
import { describeCreatePet } from './create-pet.js'
import { describeErrorsAndRouting } from './errors-and-routing.js'
import { describeGetPet } from './get-pet.js'
import type { StartService } from './harness.js'

export type { StartService } from './harness.js'
import { describeListPetsParameters } from './list-pets-parameters.js'
import { describeListPets } from './list-pets.js'
import { describeListPaging } from './paging.js'
import { describePublicBaseUrl } from './public-base-url.js'
import { describeRequestId } from './request-id.js'

/**
 * The HTTP contract of CONTRACT.md, written once and run per storage. `start` gives a fresh,
 * empty service; nothing here assumes more about the storage behind it.
 */
export const describeHttpContract = (storage: string, start: StartService) =>
  describe(`HTTP contract (${storage})`, () => {
    describeAuthentication(start)
    describeListPets(start)
    describeListPetsParameters(start)
    describeListPaging(start)
    describeCreatePet(start)
    describeCreatePetBody(start)
    describeRefusedCreatePet(start)
    describeGetPet(start)
    describeErrorsAndRouting(start)
    describeRequestId(start)
    describePublicBaseUrl(start)
  })
