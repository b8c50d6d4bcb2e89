import { providePostgresToVitest } from '../src/testing/index.js'

export default providePostgresToVitest
