import { providePostgresToVitest } from '@pets/adapters-postgres/testing'

// Each PostgreSQL-backed test service clones the template this provides.
export default providePostgresToVitest
