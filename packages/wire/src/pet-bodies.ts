import { NewPet, Pet } from '@pets/domain'
import * as t from 'io-ts'

/** The body of `POST /v1/pets`: a NewPet object, nothing more. */
export const NewPetBody = NewPet

/** The body of a 200 of getPet and of a 201 of createPet: a Pet, exactly its four fields. */
export const PetBody = Pet
/** The body of a 200 of listPets: a bare JSON array of pets. */
export const PetsBody = t.readonlyArray(Pet, 'Pets')

// By hand (ARCHITECTURE.md, 'Made by hand, on purpose', row "serializer"): only the name needs
// escaping; a property test holds this to JSON.stringify(PetBody.encode(pet)).
/** A Pet as the wire carries it: exactly id, name, categoryId and status, in that order. */
export const encodePet = (pet: Pet): string =>
  `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`

/** A list of pets as a bare JSON array. */
export const encodePets = (pets: ReadonlyArray<Pet>): string => {
  let json = '['
  for (let i = 0; i < pets.length; i++) json += (i === 0 ? '' : ',') + encodePet(pets[i]!)
  return `${json}]`
}
