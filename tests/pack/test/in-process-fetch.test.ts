import { describe, expect, inject, it } from 'vitest'
import { runFixture } from './support/consumer-project.js'

// Packed, installed in a project outside the workspace and compiled by the global set-up.
const { project } = inject('packed')

describe('fetchOf of @pets/adapters-http/testing, installed from its tarball', () => {
  it('tests the HTTP API and the client without a network', async () => {
    expect(await runFixture(project, 'in-process-fetch')).toEqual({
      created: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      names: ['Rex'],
      refused: 401,
      head: [200, null],
    })
  })
})
