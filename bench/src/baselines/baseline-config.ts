/** What a baseline process is told by the benchmark, through the same variables as the service. */
export type BaselineConfig = {
  readonly host: string
  readonly port: number
  readonly apiKeys: ReadonlyArray<string>
  readonly publicBaseUrl: string
}

/** Reads HOST, PORT, API_KEYS and PUBLIC_BASE_URL; refuses to start without keys. */
export const baselineConfig = (env: NodeJS.ProcessEnv): BaselineConfig => {
  const host = env['HOST'] || '127.0.0.1'
  const port = Number(env['PORT'] || '3000')
  const apiKeys = (env['API_KEYS'] ?? '').split(',').filter((key) => key !== '')
  if (apiKeys.length === 0) throw new Error('a baseline needs API_KEYS')
  const publicBaseUrl = (env['PUBLIC_BASE_URL'] || `http://${host}:${port}/v1`).replace(/\/+$/, '')
  return { host, port, apiKeys, publicBaseUrl }
}
