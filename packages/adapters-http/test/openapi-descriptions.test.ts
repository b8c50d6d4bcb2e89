import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../src/index.js'

const doc = buildOpenApiDocument({
  servers: [{ url: 'https://api.example.com/v1', description: 'production' }],
})

describe("the OpenAPI document's descriptions", () => {
  it('says each thing once in a description (the notes on a field and its codec do not repeat each other)', () => {
    const descriptions: Array<string> = []
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect)
      else if (typeof value === 'object' && value !== null)
        for (const [key, inner] of Object.entries(value)) {
          if (key === 'description' && typeof inner === 'string') descriptions.push(inner)
          else collect(inner)
        }
    }
    collect(doc)
    const repeating = descriptions.filter((description) => {
      const sentences = description.split(/\. /).map((sentence) => sentence.replace(/\.$/, '').toLowerCase())
      return sentences.some((sentence, i) =>
        sentences.some((other, j) => j !== i && other.includes(sentence)),
      )
    })
    expect(repeating).toEqual([])
  })
})
