import { join } from 'node:path'
import { startAutoctl, type AutoctlProcess } from './autoctl-process.js'
import { urlOf, type PostgresAddress } from './node-sql.js'

/** A data node of the formation: its name, where it listens, and the service's database on it. */
export type FormationNode = PostgresAddress & {
  readonly name: string
  /** postgres://postgres@127.0.0.1:port/app */
  readonly url: string
}

/** A data node and the pg_autoctl that runs it. */
export type DataNode = FormationNode & { readonly autoctl: AutoctlProcess }

/**
 * Starts a keeper and its PostgreSQL in `dir`/`name`, registered with the monitor: the first one
 * becomes the primary and creates the database `app`, the next one its standby (pg_basebackup).
 */
export const startDataNode = (
  name: string,
  dir: string,
  port: number,
  monitorUrl: string,
  env: NodeJS.ProcessEnv,
): DataNode => {
  const pgdata = join(dir, name)
  const autoctl = startAutoctl(
    [
      ...['create', 'postgres', '--pgdata', pgdata, '--pgport', String(port), '--name', name],
      ...['--hostname', '127.0.0.1', '--listen', '127.0.0.1', '--dbname', 'app'],
      ...['--monitor', monitorUrl, '--auth', 'trust', '--no-ssl', '--run'],
    ],
    env,
    pgdata,
  )
  const at = { host: '127.0.0.1', port }
  return { name, ...at, url: urlOf(at), autoctl }
}

/**
 * Starts `node`'s pg_autoctl again (`pg_autoctl run`) after its last one ended (a killed primary):
 * what the old one left is cleared first, and the node rejoins as a standby of the new primary.
 */
export const restartDataNode = async (node: DataNode, env: NodeJS.ProcessEnv): Promise<DataNode> => {
  await node.autoctl.stop()
  const pgdata = node.autoctl.pgdata
  return { ...node, autoctl: startAutoctl(['run', '--pgdata', pgdata], env, pgdata) }
}
