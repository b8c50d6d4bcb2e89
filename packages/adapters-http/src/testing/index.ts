export { FETCH_OF_ORIGIN, fetchOf, type FetchOfOptions, type Servable } from './fetch-of.js'
