import { describe, expect, it } from 'vitest'
import { packageOf, summarizeProfile, type CpuProfile } from '../src/summarize-profile.js'

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9, columnNumber: 0 })

describe('summarizeProfile', () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', '') },
      { id: 2, callFrame: frame('(idle)', '') },
      {
        id: 3,
        callFrame: frame('asJson', 'file:///w/node_modules/.pnpm/pino@10.4.0/node_modules/pino/lib/tools.js'),
      },
      { id: 4, callFrame: frame('encodePet', 'file:///w/packages/adapters-http/dist/codecs.js') },
      { id: 5, callFrame: frame('(garbage collector)', '') },
    ],
    samples: [2, 3, 3, 4, 5, 3],
    timeDeltas: [5000, 1000, 1000, 1000, 1000, 1000],
  }

  it('sums self time by function, leaving idle time out', () => {
    const summary = summarizeProfile(profile)
    expect(summary.totalMs).toBe(5)
    expect(summary.functions[0]).toMatchObject({ name: 'asJson', ms: 3, share: 0.6 })
    expect(summary.functions[0]?.where).toBe('pino/lib/tools.js:10')
  })

  it('sums self time by package: npm packages, workspace packages, and V8 itself', () => {
    const shares = Object.fromEntries(summarizeProfile(profile).packages.map((p) => [p.name, p.share]))
    expect(shares).toEqual({ pino: 0.6, '@pets/adapters-http': 0.2, '(garbage collector)': 0.2 })
  })

  it('names the package of a script by its path', () => {
    expect(packageOf('node:internal/http')).toBe('node (built-in)')
    expect(packageOf('file:///w/node_modules/.pnpm/@koa+router@15/node_modules/@koa/router/lib/x.js')).toBe(
      '@koa/router',
    )
    expect(packageOf('file:///w/apps/api/dist/main.js')).toBe('@pets/api')
  })
})
