/** One kind of request the benchmark sends, again and again, to every server. */
export type Scenario = {
  readonly key: string
  readonly title: string
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly body?: string
  /** The only status a response may have; any other makes the run invalid. */
  readonly status: number
}

/**
 * The four scenarios of the issue: list 20, list 100 with a status filter, create, get by id,
 * on servers that hold pets 1..seededPets.
 */
export const scenariosFor = (seededPets: number): ReadonlyArray<Scenario> => [
  { key: 'list-20', title: 'list 20', method: 'GET', path: '/v1/pets?limit=20', status: 200 },
  {
    key: 'list-100-status',
    title: 'list 100, status=sold',
    method: 'GET',
    path: '/v1/pets?limit=100&status=sold',
    status: 200,
  },
  {
    key: 'create',
    title: 'create',
    method: 'POST',
    path: '/v1/pets',
    body: '{"name":"Rex","categoryId":7,"status":"pending"}',
    status: 201,
  },
  {
    key: 'get',
    title: 'get by id',
    method: 'GET',
    path: `/v1/pets/${Math.ceil(seededPets / 2)}`,
    status: 200,
  },
]

/** List 20 again, on PostgreSQL, with a key made by `keys create` instead of one of API_KEYS. */
export const STORED_KEY_SCENARIO: Scenario = {
  key: 'list-20-stored-key',
  title: 'list 20, stored key',
  method: 'GET',
  path: '/v1/pets?limit=20',
  status: 200,
}

/** The pet number `i` of the seed, the same on every server and in SQL. */
export const seedPet = (i: number) => ({
  name: `pet ${i}`,
  categoryId: 1 + (i % 50),
  status: (['available', 'pending', 'sold'] as const)[i % 3]!,
})
