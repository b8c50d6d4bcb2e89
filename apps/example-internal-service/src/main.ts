#!/usr/bin/env node
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInternalService } from './create-internal-service.js'

// PORT (4000; 0: any free port) and PUBLIC_URL (where callers reach this service; http://127.0.0.1:PORT by
// default) place it; PETS_CALLERS=billing:token-1,search:token-2 names the services that may call /animals/v1.
const portText = process.env.PORT ?? '4000'
const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN
if (!(port <= 65535)) {
  process.stderr.write('intake desk: PORT must be an integer from 0 to 65535\n')
  process.exit(2)
}
const callers = Object.fromEntries(
  (process.env.PETS_CALLERS ?? '')
    .split(',')
    .filter((pair) => pair.includes(':'))
    .map((pair) => [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)]),
)

// Listen first, so that the links name the port the system gave (PORT=0); then hand the requests to the app,
// whose middleware Koa composes there, with the router already in it.
const server = createServer()
// A port in use (the README's run started twice) or one not allowed: one line, as for a PORT that is no port.
const cannotListen = (error: NodeJS.ErrnoException) => {
  process.stderr.write(`intake desk: cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}\n`)
  process.exit(1)
}
server.once('error', cannotListen)
server.listen(port, '127.0.0.1', () => {
  server.off('error', cannotListen)
  const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { app } = createInternalService({ publicUrl, callers })
  server.on('request', app.callback())
  // The tokens are never printed, only who may call.
  process.stdout.write(
    `intake desk on ${publicUrl}; pets API callers: ${Object.keys(callers).join(', ') || 'none'}\n`,
  )
})
