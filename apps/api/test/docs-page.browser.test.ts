import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, TEST_KEYS, type TestService } from './support/test-service.js'

// Debian's Chromium: nothing may download a browser of its own (TOOLCHAIN.md, "Browser tests").
const CHROMIUM = '/usr/bin/chromium'
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
/** Kept after the run, git-ignored: what the page looked like. */
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url))
const KEY = TEST_KEYS[1]

describe('the docs page in headless Chromium', () => {
  let svc: TestService
  let browser: Browser
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium is missing at ${CHROMIUM}, and the docs page is tested in it. Install Debian's package: ` +
          '"apt-get update && apt-get install -y chromium" (as root), or run "bash scripts/bootstrap.sh test", which does.',
      )
    // No PUBLIC_BASE_URL: the document's server is this test server, so the page can call it.
    svc = await startTestService()
    const added = await svc.authed('/v1/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Docs Dog","categoryId":7,"status":"pending"}',
    })
    expect(added.status).toBe(201)
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await svc?.close()
  })

  // A page that may reach this server only, and that records what else it tried and what failed.
  const openDocs = async (page: Page) => {
    const outside: Array<string> = []
    const errors: Array<string> = []
    await page.route('**/*', (route) => {
      if (new URL(route.request().url()).origin === svc.url) return route.continue()
      outside.push(route.request().url())
      return route.abort()
    })
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(`${svc.url}/docs`)
    await page.locator('#operations-pets-listPets').waitFor()
    return { outside, errors }
  }

  it('shows the operations and the deprecation of getPet, and lists pets with a key typed into the page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const { outside, errors } = await openDocs(page)

    for (const id of ['pets-listPets', 'pets-createPet', 'pets-getPet', 'store-listOrders'])
      await expect(page.locator(`#operations-${id}`).isVisible()).resolves.toBe(true)
    await expect(page.locator('#operations-pets-getPet.opblock-deprecated').count()).resolves.toBe(1)
    await expect(page.locator('.opblock-deprecated').count()).resolves.toBe(1)

    await page.locator('.auth-wrapper button.authorize').click()
    await page.locator('.modal-ux input').fill(KEY)
    await page.locator('.modal-ux button.modal-btn.authorize').click()
    await page.locator('.modal-ux button.btn-done').click()

    const sent: Array<string | undefined> = []
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/pets') sent.push(request.headers().authorization)
    })
    const listPets = page.locator('#operations-pets-listPets')
    await listPets.locator('.opblock-summary-control').click()
    await listPets.locator('.try-out__btn').click()
    await listPets.locator('button.execute').click()
    const status = listPets.locator('.live-responses-table .response .response-col_status').first()
    await status.waitFor()
    expect((await status.innerText()).trim()).toBe('200')
    await expect(listPets.locator('.live-responses-table').innerText()).resolves.toContain('Docs Dog')
    expect(sent).toEqual([`Bearer ${KEY}`])

    await mkdir(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: `${ARTIFACTS}docs-page.png`, fullPage: true })

    // CONTRACT: the key is the reader's, kept in the tab's memory and nowhere else.
    const stored = await page.evaluate<string>('JSON.stringify([{ ...localStorage }, { ...sessionStorage }])')
    expect(stored).not.toContain(KEY)
    expect(JSON.stringify(await context.cookies())).not.toContain(KEY)
    const otherTab = await context.newPage()
    await openDocs(otherTab)
    await expect(otherTab.locator('.auth-wrapper button.authorize.unlocked').count()).resolves.toBe(1)

    expect(outside, 'the page asked for something outside this server').toEqual([])
    expect(errors, 'the page logged errors').toEqual([])
    await context.close()
  }, 60_000)
})
