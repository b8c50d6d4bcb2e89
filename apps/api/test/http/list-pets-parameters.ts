import { describe, expect, it } from 'vitest'
import { expectValidationFailed, mentions } from './expect-error.js'
import { useService, type StartService } from './harness.js'

/** CONTRACT: a malformed, out-of-range, repeated or unknown query parameter is a 400 naming it. */
export const describeListPetsParameters = (start: StartService) =>
  describe('GET /v1/pets parameters', () => {
    const svc = useService(start)
    const list = (query: string) => svc().authed(`/v1/pets?${query}`)

    it.each(['0', '101', '-1', '1.5', 'abc', '', '1e1', '+5', '99999999999999999999999'])(
      'limit=%s gets 400 validation_failed naming limit',
      async (value) => {
        await expectValidationFailed(await list(`limit=${value}`), 'limit')
      },
    )

    it('a repeated limit gets 400 validation_failed naming limit, even when each value is valid', async () => {
      await expectValidationFailed(await list('limit=1&limit=2'), 'limit')
      await expectValidationFailed(await list('limit=5&limit=5'), 'limit')
    })

    it.each(['Available', 'SOLD', 'foo', ''])(
      'status=%s gets 400 validation_failed naming status',
      async (value) => {
        await expectValidationFailed(await list(`status=${value}`), 'status')
      },
    )

    it('a repeated status gets 400 validation_failed naming status', async () => {
      await expectValidationFailed(await list('status=sold&status=pending'), 'status')
    })

    it.each(['-1', '1.5', 'abc', '', '9007199254740992', '18446744073709551616'])(
      'after=%s gets 400 validation_failed naming after',
      async (value) => {
        await expectValidationFailed(await list(`after=${value}`), 'after')
      },
    )

    it('a repeated after gets 400 validation_failed naming after', async () => {
      await expectValidationFailed(await list('after=1&after=2'), 'after')
    })

    it.each(['color', 'offset', 'Limit', '__proto__', 'constructor'])(
      'an unknown parameter %s gets 400 validation_failed naming it',
      async (name) => {
        await expectValidationFailed(await list(`${name}=1`), name)
      },
    )

    it('an unknown parameter with an empty name gets 400 validation_failed naming it as ""', async () => {
      const message = await expectValidationFailed(await list('=5'), '""')
      expect(message).not.toMatch(/\bbody\b/)
    })

    it('several bad parameters get one 400 whose message names every one', async () => {
      await expectValidationFailed(await list('limit=0&status=foo&after=-1'), 'limit', 'status', 'after')
    })

    it('bad values beside unknown parameters are named as well as the unknown ones', async () => {
      const unknownOnly = await expectValidationFailed(await list('color=red&size=3'), 'color', 'size')
      const mixed = await expectValidationFailed(
        await list('limit=0&status=foo&color=red&size=3'),
        'color',
        'size',
      )
      // The unknown parameters' message may list the allowed ones; the bad values must add to it.
      expect(mentions(mixed, 'limit')).toBeGreaterThan(mentions(unknownOnly, 'limit'))
      expect(mentions(mixed, 'status')).toBeGreaterThan(mentions(unknownOnly, 'status'))
    })

    it('a message for one bad parameter does not blame the good ones', async () => {
      const message = await expectValidationFailed(await list('limit=5&status=lost&after=0'), 'status')
      expect(mentions(message, 'limit')).toBe(0)
      expect(mentions(message, 'after')).toBe(0)
    })
  })
