import { DEFAULT_PET_STATUS } from '@pets/domain'
import type { JsonSchema } from '@pets/wire'

// Prose about fields that a codec cannot carry: meaning and defaults, never a constraint.
const FIELD_NOTES: Readonly<Record<string, Readonly<Record<string, JsonSchema>>>> = {
  Pet: {
    id: { description: 'Assigned by the service on creation; strictly increasing, never reused.' },
    name: { description: "The pet's name." },
    categoryId: { description: 'The category the pet belongs to.' },
    status: { description: 'Availability of the pet.' },
  },
  NewPet: {
    name: { description: "The pet's name." },
    categoryId: { description: 'The category the pet belongs to.' },
    status: { description: 'Availability of the pet.', default: DEFAULT_PET_STATUS },
  },
  Error: {
    code: { description: 'Machine-readable error code.' },
    message: {
      description: 'What was wrong, for people; for a 400 it names every offending field or parameter.',
    },
    status: { description: 'The HTTP status code of the response.' },
  },
}

/** Adds the notes on the fields of the component `name` to its schema. */
export const annotate = (name: string, schema: JsonSchema): JsonSchema => {
  const notes = FIELD_NOTES[name]
  if (notes === undefined || schema.properties === undefined) return schema
  const properties = schema.properties as Record<string, JsonSchema>
  return {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([key, property]) => {
        const note = notes[key] ?? {}
        // The codec's own description states a rule; the note comes first and keeps it.
        const description = [note.description, property.description].filter((d) => d !== undefined).join(' ')
        return [key, { ...property, ...note, ...(description === '' ? {} : { description }) }]
      }),
    ),
  }
}
