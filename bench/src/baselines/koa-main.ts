import { baselineConfig } from './baseline-config.js'
import { createKoaBaseline } from './koa-app.js'
import { storeFromEnv } from './pet-store.js'

// The Koa baseline as a process: HOST, PORT, API_KEYS, PUBLIC_BASE_URL and the store's variables.
const config = baselineConfig(process.env)
const store = storeFromEnv(process.env)
const server = createKoaBaseline(config.apiKeys, config.publicBaseUrl, store).listen(config.port, config.host)
server.keepAliveTimeout = 5_000
process.on('SIGTERM', () => {
  server.close()
  server.closeIdleConnections()
  void store.close().finally(() => process.exit(0))
})
