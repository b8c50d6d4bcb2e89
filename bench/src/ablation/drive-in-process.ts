import { IncomingMessage, ServerResponse, type RequestListener } from 'node:http'
import { Socket } from 'node:net'
import v8 from 'node:v8'

/** One request, as the in-process driver sends it. */
export type InProcessRequest = {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

/** What one piece of work costs per request: CPU µs of this process, and bytes allocated. */
export type Cost = { readonly cpuUs: number; readonly bytes: number }

// node's own request and response objects on a socket that never connects: the response keeps its
// output in memory. What is measured is the JavaScript of a request, without the kernel's writes
// (the same for every server) and without a load generator sharing the cores.
const sendOnce = (handle: RequestListener, request: InProcessRequest): Promise<number> =>
  new Promise((resolve) => {
    const req = new IncomingMessage(new Socket())
    req.method = request.method
    req.url = request.url
    // As every HTTP/1.1 request carries one (the service answers 400 to one without).
    req.headers = { host: '127.0.0.1', ...request.headers }
    req.httpVersionMajor = 1
    req.httpVersionMinor = 1
    req.httpVersion = '1.1'
    if (request.body !== undefined) req.push(request.body)
    req.push(null)
    req.complete = true
    const res = new ServerResponse(req)
    const end = res.end.bind(res) as (...args: Array<unknown>) => ServerResponse
    res.end = ((...args: Array<unknown>) => {
      const ended = end(...args)
      resolve(res.statusCode)
      return ended
    }) as typeof res.end
    handle(req, res)
  })

/**
 * Sends `request` `count` times, one after the other (after a fifth as many to warm up), and says
 * what each cost: CPU time (process.cpuUsage) and bytes allocated (heap growth plus what every
 * garbage collection in between freed, from V8's GCProfiler). Fails on a status other than `status`.
 */
export const measureInProcess = async (
  handle: RequestListener,
  request: InProcessRequest,
  status: number,
  count: number,
): Promise<Cost> => {
  for (let i = 0; i < count / 5; i++) {
    await new Promise(setImmediate)
    await sendOnce(handle, request)
  }
  const profiler = new v8.GCProfiler()
  profiler.start()
  const heapBefore = v8.getHeapStatistics().used_heap_size
  const cpuBefore = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    // A turn of the event loop between requests, as a server has: what a request left to I/O
    // (a log line's write) completes, instead of piling up behind a chain of promises.
    await new Promise(setImmediate)
    const answered = await sendOnce(handle, request)
    if (answered !== status)
      throw new Error(`${request.method} ${request.url} answered ${answered}, not ${status}`)
  }
  const cpu = process.cpuUsage(cpuBefore)
  const heapAfter = v8.getHeapStatistics().used_heap_size
  let freed = 0
  for (const gc of profiler.stop().statistics)
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
  return { cpuUs: (cpu.user + cpu.system) / count, bytes: (heapAfter - heapBefore + freed) / count }
}
