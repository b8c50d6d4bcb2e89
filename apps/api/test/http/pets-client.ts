import { expect } from 'vitest'
import type { TestService } from '../support/test-service.js'
import { PUBLIC_BASE_URL } from './harness.js'

/** A Pet as the wire carries it. */
export type WirePet = {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: string
}

export const STATUSES = ['available', 'pending', 'sold'] as const

/** POSTs a JSON text to /v1/pets, as sent, with the first test key. */
export const postJson = (svc: TestService, text: string | Uint8Array, headers: Record<string, string> = {}) =>
  svc.authed('/v1/pets', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: text,
  })

/** POSTs a value to /v1/pets as JSON. */
export const postPet = (svc: TestService, value: unknown) => postJson(svc, JSON.stringify(value))

/** Adds a valid pet, failing the test unless the service answers 201, and returns it. */
export const addPet = async (
  svc: TestService,
  fields: Partial<Omit<WirePet, 'id'>> = {},
): Promise<WirePet> => {
  const res = await postPet(svc, { name: 'Rex', categoryId: 1, ...fields })
  const text = await res.text()
  expect(res.status, text).toBe(201)
  return JSON.parse(text) as WirePet
}

/** Adds `count` pets one after the other, their statuses cycling through available, pending, sold. */
export const addPets = async (svc: TestService, count: number): Promise<ReadonlyArray<WirePet>> => {
  const added: Array<WirePet> = []
  for (let i = 0; i < count; i++)
    added.push(await addPet(svc, { name: `Pet ${i}`, status: STATUSES[i % 3]! }))
  return added
}

/** GETs a path with the first test key and returns the response and its pets. */
export const listPage = async (svc: TestService, path: string) => {
  const res = await svc.authed(path)
  const text = await res.text()
  expect(res.status, text).toBe(200)
  return { res, pets: JSON.parse(text) as ReadonlyArray<WirePet> }
}

const NEXT = /^<([^>]*)>; rel="next"$/

/** The path under this server of the `next` link of a response, or undefined when it has none. */
export const nextPath = (res: Response): string | undefined => {
  const link = res.headers.get('link')
  if (link === null) return undefined
  const target = NEXT.exec(link)?.[1]
  expect(target, `a next link: ${link}`).toBeDefined()
  expect(target!.startsWith(`${PUBLIC_BASE_URL}/`), `a link under ${PUBLIC_BASE_URL}: ${link}`).toBe(true)
  return `/v1${target!.slice(PUBLIC_BASE_URL.length)}`
}

/** The ids of pets, in the order given. */
export const idsOf = (pets: ReadonlyArray<WirePet>) => pets.map((pet) => pet.id)
