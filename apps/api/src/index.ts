export { loadConfig, type AppConfig, type AppEnv, type LogLevel, type StorageConfig } from './config.js'
export { createService, type AnimalStoreService, type ServiceOptions } from './create-service.js'
export { createLogger, type Logger } from './logger.js'
export { NODE_FLAGS } from './node-flags.js'
export { startServer, type RunningServer, type Stopped, type StopOutcome } from './start-server.js'
// The parts createService wires, for hosts that compose their own (and the benchmark's ablation).
export { httpLoggerOf } from './logger.js'
export { createServiceMetrics, type ServiceMetrics } from './service-metrics.js'
export { createUsageCounter, type UsageCounter } from './usage-counter.js'
