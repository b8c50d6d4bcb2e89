// Bare Koa, the yardstick of start-up.mjs: one middleware answering 200 to every request.
import Koa from 'koa'

const app = new Koa()
app.use((ctx) => {
  ctx.body = 'hello'
})
const server = app.listen(Number(process.env.PORT), process.env.HOST)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
