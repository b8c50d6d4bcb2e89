import { createResponseValidator, type ResponseValidator } from './openapi-validator.js'

const validators = new Map<string, Promise<ResponseValidator>>()

const load = async (origin: string): Promise<ResponseValidator> => {
  const res = await fetch(`${origin}/openapi.json`)
  if (res.status !== 200) throw new Error(`${origin}/openapi.json answered ${res.status}`)
  return createResponseValidator(await res.json())
}

/** Forgets the document of a service that has stopped: another may take its port. */
export const unwatchService = (url: string): void => {
  validators.delete(new URL(url).origin)
}

/**
 * Throws, failing the test, unless the answer conforms to the OpenAPI document of the service
 * that gave it (read from its /openapi.json at the first answer checked): an undocumented status,
 * header or field, or a missing required header. Answers
 * on paths the document does not describe pass unchecked. Returns the answer, unread.
 */
export const expectConforms = async (
  origin: string,
  request: { readonly method?: string | undefined; readonly target: string },
  res: Response,
): Promise<Response> => {
  let validator = validators.get(origin)
  if (validator === undefined) validators.set(origin, (validator = load(origin)))
  const problems = (await validator).problemsOf({
    method: request.method ?? 'GET',
    target: request.target,
    status: res.status,
    headers: res.headers,
    body: await res.clone().text(),
  })
  if (problems !== undefined && problems.length > 0)
    throw new Error(`The answer does not conform to the OpenAPI document:\n  ${problems.join('\n  ')}`)
  return res
}

/** fetch, with the answer checked by expectConforms. */
export const checkedFetch = async (url: string, init: RequestInit = {}): Promise<Response> => {
  const { origin, pathname, search } = new URL(url)
  return expectConforms(
    origin,
    { method: init.method, target: `${pathname}${search}` },
    await fetch(url, init),
  )
}
