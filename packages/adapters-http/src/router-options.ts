import type { PetsRouterOptions } from './create-pets-router.js'

// setTimeout's largest delay; a longer one fires at once.
const MAX_TIMER_MS = 2 ** 31 - 1

const refuse = (option: string, rule: string, value: unknown): never => {
  throw new TypeError(
    `${option} ${rule}; it is ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  )
}

// An empty query or fragment (`…/v1?`) parses to none: the text itself must have neither mark.
const isAbsoluteHttpUrl = (text: string): boolean => {
  if (!URL.canParse(text) || text.includes('?') || text.includes('#')) return false
  const url = new URL(text)
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
}

/**
 * Refuses, when the router is made, options that would make every answer wrong (a Location that is no
 * URL) or no route match (a prefix without its leading slash): a TypeError naming the option and its value.
 */
export const checkRouterOptions = ({
  publicBaseUrl,
  prefix,
  bodyTimeoutMs,
}: Pick<PetsRouterOptions, 'publicBaseUrl' | 'prefix' | 'bodyTimeoutMs'>): void => {
  if (typeof publicBaseUrl !== 'string' || !isAbsoluteHttpUrl(publicBaseUrl))
    refuse(
      'publicBaseUrl',
      'must be an absolute http or https URL without query, fragment, user or password, such as https://api.example.com/v1',
      publicBaseUrl,
    )
  if (prefix !== undefined && (typeof prefix !== 'string' || !/^\/[^?#\s]*$/.test(prefix)))
    refuse(
      'prefix',
      'must be a path that starts with "/", such as "/v1", without query, fragment or spaces',
      prefix,
    )
  if (
    bodyTimeoutMs !== undefined &&
    !(Number.isInteger(bodyTimeoutMs) && bodyTimeoutMs > 0 && bodyTimeoutMs <= MAX_TIMER_MS)
  )
    refuse('bodyTimeoutMs', `must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, bodyTimeoutMs)
}
