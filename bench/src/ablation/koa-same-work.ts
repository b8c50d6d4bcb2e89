import type { RequestListener } from 'node:http'
import { createKoaBaseline } from '../baselines/koa-app.js'
import { createMemoryStore } from '../baselines/pet-store.js'

/** The bare Koa baseline, in-process, on 1,000 pets: the floor the service's ablation compares with. */
export const koaSameWork = async (key: string): Promise<RequestListener> => {
  const store = createMemoryStore()
  for (let i = 0; i < 1000; i++)
    await store.add({
      name: `pet ${i}`,
      categoryId: 1 + (i % 7),
      status: (['available', 'pending', 'sold'] as const)[i % 3]!,
    })
  return createKoaBaseline([key], 'http://127.0.0.1:3000/v1', store).callback()
}
