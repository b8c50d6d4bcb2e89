import { createServer, type Server, type Socket } from 'node:net'
import { TLSSocket } from 'node:tls'

// A self-signed certificate and its key, made for these tests alone (openssl req -x509, P-256, valid to 2126):
// no client trusts it, which is the point.
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIHIH9039O8QOLlJq
puN9OeAAViK9l7nH4j4e4U/ndzShRANCAARFip6aS+GEa8CUZ/SJWz0S3HtCjSeI
cKCeNoHhwxnoiFTFNguSw28xIPO/TUDMCw7awqvr+J7ssv2pu8lu1ir+
-----END PRIVATE KEY-----`
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBmTCCAT+gAwIBAgIUQyUiZPgv9f1JMXVIbEWvJ2s0+e0wCgYIKoZIzj0EAwIw
ITEfMB0GA1UEAwwWYW5pbWFsLXN0b3JlIHRlc3Qgb25seTAgFw0yNjExMjYxNjA4
MjZaGA8yMTI2MTEwMjE2MDgyNlowITEfMB0GA1UEAwwWYW5pbWFsLXN0b3JlIHRl
c3Qgb25seTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABEWKnppL4YRrwJRn9Ilb
PRLce0KNJ4hwoJ42geHDGeiIVMU2C5LDbzEg879NQMwLDtrCq+v4nuyy/am7yW7W
Kv6jUzBRMB0GA1UdDgQWBBQioYAHhxfmcrTe6/OxeSN20j6UzjAfBgNVHSMEGDAW
gBQioYAHhxfmcrTe6/OxeSN20j6UzjAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49
BAMCA0gAMEUCIAEGgFB502C9r2XG9iDGSfpaEG94JmnVQPj/fg6OVFSxAiEA0h/I
Zqn5m50kx2JAQh+14sPr0gEiltIe5qQcbhbPPAk=
-----END CERTIFICATE-----`

/** A server on 127.0.0.1 that answers PostgreSQL's SSLRequest as a server would; `close` stops it. */
export type FakeTlsServer = { readonly port: number; readonly close: () => Promise<void> }

// The SSLRequest: length 8, then the code 80877103; the server answers one byte, N (no TLS) or S.
const answerSslRequest = (answer: 'N' | 'S', then: (socket: Socket) => void) =>
  createServer((socket) => {
    socket.on('error', () => socket.destroy())
    socket.once('data', () => {
      socket.write(answer)
      then(socket)
    })
  })

const listen = async (server: Server): Promise<FakeTlsServer> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A PostgreSQL server without TLS, as far as a client asking for it can tell: it answers N and hangs up. */
export const startServerWithoutTls = () => listen(answerSslRequest('N', (socket) => socket.end()))

/** A server that accepts TLS with a certificate no client trusts (the handshake fails on the client). */
export const startServerWithUntrustedCertificate = () =>
  listen(
    answerSslRequest('S', (socket) => {
      const tls = new TLSSocket(socket, { isServer: true, key: KEY, cert: CERTIFICATE })
      tls.on('error', () => tls.destroy())
    }),
  )
