import { describe, expect, it } from 'vitest'
import { nextLinkOf, nextPageUrl } from '../src/next-link.js'

const here = 'http://pets.internal/v1/pets?limit=2'

describe('nextLinkOf', () => {
  it('finds the next link among several, whatever their order', () => {
    const header =
      '<https://a.test/v1/pets>; rel="successor-version", <https://a.test/v1/pets?after=2>; rel="next"'
    expect(nextLinkOf(header, here)?.href).toBe('https://a.test/v1/pets?after=2')
  })

  it('reads an unquoted rel, a rel with several relations and other parameters', () => {
    expect(nextLinkOf('</v1/pets?after=2>; rel=next', here)?.href).toBe(
      'http://pets.internal/v1/pets?after=2',
    )
    expect(nextLinkOf('<?after=4>; title="more"; rel="last NEXT"', here)?.href).toBe(
      'http://pets.internal/v1/pets?after=4',
    )
  })

  it('finds none without a Link header or without a next relation', () => {
    expect(nextLinkOf(null, here)).toBeUndefined()
    expect(nextLinkOf('<https://a.test/v1/pets>; rel="successor-version"', here)).toBeUndefined()
    expect(nextLinkOf('<https://a.test/v1/pets>; title="next"', here)).toBeUndefined()
  })
})

describe('nextPageUrl', () => {
  it('follows a link on the origin of the base URL as it is', () => {
    expect(
      nextPageUrl(new URL('http://pets.internal/other/v1/pets?after=2'), 'http://pets.internal/v1'),
    ).toBe('http://pets.internal/other/v1/pets?after=2')
  })

  it('moves a link to another origin onto the base URL, keeping its query', () => {
    expect(nextPageUrl(new URL('https://evil.test/v1/pets?limit=2&after=2'), 'http://pets.internal/v1')).toBe(
      'http://pets.internal/v1/pets?limit=2&after=2',
    )
  })

  it.each(['http://user@pets.internal/v1/pets?after=2', 'http://:secret@pets.internal/v1/pets?after=2'])(
    'moves a link with credentials (%s) onto the base URL: fetch would refuse it',
    (link) => {
      expect(nextPageUrl(new URL(link), 'http://pets.internal/v1')).toBe(
        'http://pets.internal/v1/pets?after=2',
      )
    },
  )
})
