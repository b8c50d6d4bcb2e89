import { openFreshDatabase, type FreshDatabase } from '@pets/adapters-postgres/testing'
import { inject } from 'vitest'
import { startTcpProxy } from './tcp-proxy.js'

/** A fresh database, and a TCP proxy in front of it that the test controls. */
export const databaseBehindProxy = async () => {
  const database: FreshDatabase = await openFreshDatabase(inject('postgres'))
  const target = new URL(database.url)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const viaProxy = new URL(database.url)
  viaProxy.hostname = '127.0.0.1'
  viaProxy.port = String(proxy.port)
  return {
    database,
    proxy,
    /** DATABASE_URL through the proxy. */
    url: viaProxy.toString(),
    close: async () => {
      await proxy.close()
      await database.close()
    },
  }
}
