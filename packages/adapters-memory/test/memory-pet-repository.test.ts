import { describePetRepositoryContract } from '@pets/domain/testing'
import { createMemoryPetRepository } from '../src/index.js'

describePetRepositoryContract('memory', async () => ({
  repo: createMemoryPetRepository(),
  close: async () => {},
}))
