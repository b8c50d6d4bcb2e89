import { describe, expect, it } from 'vitest'
import { createHttpApp, createPetsRouter, type PetsRouterOptions } from '../src/index.js'
import { memoryApp } from './support/memory-app.js'

const { options } = memoryApp()
const withOptions = (changes: Partial<PetsRouterOptions>) => ({ ...options, ...changes })

describe('the options of the router and the app', () => {
  it.each([
    ['a base URL that is no URL', { publicBaseUrl: 'not a url' }, 'publicBaseUrl', '"not a url"'],
    ['a relative base URL', { publicBaseUrl: '/v1' }, 'publicBaseUrl', '"/v1"'],
    ['a base URL of another scheme', { publicBaseUrl: 'ftp://api.example.com/v1' }, 'publicBaseUrl', '"ftp:'],
    ['a base URL with a query', { publicBaseUrl: 'https://api.example.com/v1?' }, 'publicBaseUrl', '?"'],
    [
      'a base URL with a user',
      { publicBaseUrl: 'https://me@api.example.com/v1' },
      'publicBaseUrl',
      '"https:',
    ],
    ['a prefix without its slash', { prefix: 'animals/v1' }, 'prefix', '"animals/v1"'],
    ['a prefix with a query', { prefix: '/v1?x' }, 'prefix', '"/v1?x"'],
    ['a body timeout of zero', { bodyTimeoutMs: 0 }, 'bodyTimeoutMs', 'it is 0'],
    ['an endless body timeout', { bodyTimeoutMs: Infinity }, 'bodyTimeoutMs', 'it is Infinity'],
    [
      'a body timeout past what a timer holds',
      { bodyTimeoutMs: 2 ** 31 },
      'bodyTimeoutMs',
      'it is 2147483648',
    ],
  ])('refuses %s when made, naming the option and its value', (_, changes, option, shown) => {
    for (const make of [createPetsRouter, createHttpApp]) {
      const made = () => make(withOptions(changes as Partial<PetsRouterOptions>))
      expect(made).toThrow(TypeError)
      expect(made).toThrow(new RegExp(`^${option} must `))
      expect(made).toThrow(shown)
    }
  })

  it.each([
    ['a base URL with a port and a path', { publicBaseUrl: 'http://127.0.0.1:3000/animals/v1' }],
    ['a base URL ending in a slash', { publicBaseUrl: 'https://api.example.com/v1/' }],
    ['the root as prefix', { prefix: '/' }],
    ['a longer prefix', { prefix: '/animals/v1' }],
    ['a body timeout of a second', { bodyTimeoutMs: 1000 }],
  ])('accepts %s', (_, changes) => {
    expect(() => createPetsRouter(withOptions(changes))).not.toThrow()
  })
})
