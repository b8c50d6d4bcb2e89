export { loadConfig, type AppConfig, type AppEnv, type LogLevel, type StorageConfig } from './config.js'
export { createService, type AnimalStoreService, type ServiceOptions } from './create-service.js'
export { createLogger, type Logger } from './logger.js'
export { startServer, type RunningServer, type StopOutcome } from './start-server.js'
