import { NewPet, Pet } from '@pets/domain'
import * as t from 'io-ts'
import { compileSerializer, type Serializer } from './compile-serializer.js'
import { jsonSchemaOf } from './json-schema.js'

/** The body of `POST /v1/pets`: a NewPet object, nothing more. */
export const NewPetBody = NewPet

/** The body of a 200 of getPet and of a 201 of createPet: a Pet, exactly its four fields. */
export const PetBody = Pet
/** The body of a 200 of listPets: a bare JSON array of pets. */
export const PetsBody = t.readonlyArray(Pet, 'Pets')

/** A Pet as the wire carries it: exactly id, name, categoryId and status, in that order. */
export const encodePet: Serializer<Pet> = compileSerializer(jsonSchemaOf(PetBody), 'Pet')
/** A list of pets as a bare JSON array. */
export const encodePets: Serializer<ReadonlyArray<Pet>> = compileSerializer(jsonSchemaOf(PetsBody), 'Pets')
