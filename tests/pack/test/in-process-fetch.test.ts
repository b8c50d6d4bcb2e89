import { describe, expect, inject, it } from 'vitest'
import { packedManifest, runFixture } from './support/consumer-project.js'
import { installablePackages } from './support/workspace-packages.js'

// Packed, installed in a project outside the workspace and compiled by the global set-up.
const { tarballs, project } = inject('packed')

describe('fetchOf of @pets/adapters-http/testing, installed from its tarball', () => {
  it('tests the HTTP API and the client without a network', async () => {
    expect(await runFixture(project, 'in-process-fetch')).toEqual({
      created: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      names: ['Rex'],
      refused: 401,
      head: [200, null],
    })
  })

  it('needs light-my-request only as an optional peer, so that a production install goes without it', () => {
    const http = installablePackages().find((p) => p.manifest.name === '@pets/adapters-http')
    const packed = packedManifest(tarballs, http?.tarball ?? '')
    expect(packed.dependencies).not.toHaveProperty('light-my-request')
    expect(packed.peerDependencies).toHaveProperty('light-my-request')
    expect(packed).toMatchObject({ peerDependenciesMeta: { 'light-my-request': { optional: true } } })
  })
})
