#!/usr/bin/env node
import { createInternalService } from './create-internal-service.js'

// PETS_CALLERS=billing:token-1,search:token-2 names the services that may call /animals/v1.
const port = Number(process.env.PORT ?? '4000')
const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`
const callers = Object.fromEntries(
  (process.env.PETS_CALLERS ?? '')
    .split(',')
    .filter((pair) => pair.includes(':'))
    .map((pair) => [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)]),
)

const { app } = createInternalService({ publicUrl, callers })
app.listen(port, '127.0.0.1', () => {
  // The tokens are never printed, only who may call.
  process.stdout.write(
    `intake desk on ${publicUrl}; pets API callers: ${Object.keys(callers).join(', ') || 'none'}\n`,
  )
})
