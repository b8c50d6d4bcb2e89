// Preloaded (`node --import`, through NODE_OPTIONS) into the processes of the service that `pnpm bench:churn`
// runs: in the primary alone, a JSON line a second to CHURN_PROBE_FILE with its memory, its active handles and
// timers by type (process.getActiveResourcesInfo), its open descriptors and the listeners on node:cluster.
import cluster from 'node:cluster'
import { appendFileSync, readdirSync } from 'node:fs'

const file = process.env['CHURN_PROBE_FILE']
if (cluster.isPrimary && file !== undefined) {
  const listeners = ['exit', 'listening', 'message', 'disconnect', 'online', 'fork'] as const
  setInterval(() => {
    const resources: Record<string, number> = {}
    for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1
    const { rss, heapUsed } = process.memoryUsage()
    const line = {
      at: Date.now(),
      rss,
      heapUsed,
      resources,
      fds: readdirSync('/proc/self/fd').length,
      clusterListeners: Object.fromEntries(listeners.map((event) => [event, cluster.listenerCount(event)])),
    }
    appendFileSync(file, `${JSON.stringify(line)}\n`)
  }, 1000).unref()
}
