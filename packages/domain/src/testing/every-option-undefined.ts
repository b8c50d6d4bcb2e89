/** The optional properties of T. */
export type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]

/**
 * Every optional property of T, each given as undefined: a test's object of this type lists every option (a new
 * one fails the type check until it is listed), and an option declared without `| undefined` fails it under
 * exactOptionalPropertyTypes, as an embedder passing on a value of its own configuration would.
 */
export type EveryOptionUndefined<T> = { readonly [K in OptionalKeys<T>]-?: undefined }
