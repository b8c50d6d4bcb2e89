import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import type { ConfigContext } from './app-config.js'

/** The value of a variable as read: its own, else its default. */
export type Get = {
  <A>(variable: Variable<A>): A
  <A>(variable: OptionalVariable<A>): A | undefined
}

/** A variable's default: a value, or one made from other variables, or none (text for the README). */
export type Default<A> =
  { readonly value: A } | { readonly text: string; readonly of: (get: Get, context: ConfigContext) => A }

type Described<V> = {
  readonly name: string
  /** Decodes the text; its failure's message says what the variable must be, never its value. */
  readonly codec: t.Type<NonNullable<V>, string, unknown>
  /** What else must hold once every variable is read: one message per problem. */
  readonly requires?: (value: NoInfer<V>, get: Get) => ReadonlyArray<string>
  /** What production asks of it: in words for the README, and the check that refuses the rest. */
  readonly production?: {
    readonly rule: string
    readonly refuse: (value: NoInfer<V>, get: Get) => ReadonlyArray<string>
  }
  /** What it means, in the README's words (Markdown). */
  readonly meaning: string
}

/** A variable with a default. */
export type Variable<A> = Described<A> & { readonly default: Default<NoInfer<A>> }
/** A variable that may stay unset; `unset` says, for the README, what that means. */
export type OptionalVariable<A> = Described<A | undefined> & { readonly unset: string }
/** Any variable of the table, the type of its value forgotten (each check is given its own). */
export type AnyVariable = {
  readonly name: string
  readonly codec: {
    readonly decode: (u: unknown) => t.Validation<unknown>
    readonly encode: (a: never) => string
  }
  readonly default?:
    | { readonly value: unknown }
    | { readonly text: string; readonly of: (get: Get, context: ConfigContext) => unknown }
  readonly unset?: string
  readonly requires?: (value: never, get: Get) => ReadonlyArray<string>
  readonly production?: {
    readonly rule: string
    readonly refuse: (value: never, get: Get) => ReadonlyArray<string>
  }
  readonly meaning: string
}

/** A variable with a default, as written in the table. */
export const variable = <A>(described: Variable<A>): Variable<A> => described
/** A variable that may stay unset, as written in the table. */
export const optional = <A>(described: OptionalVariable<A>): OptionalVariable<A> => described

type Env = Readonly<Record<string, string | undefined>>

/** The variables of a table read from an environment, and every problem found, in table order. */
export type Read = {
  readonly get: Get
  /** Whether the variable was set (not empty). */
  readonly given: (variable: AnyVariable) => boolean
  readonly problems: ReadonlyArray<string>
}

/**
 * Reads every variable of `table` in order: those set, by their codecs; then the defaults; then what each
 * requires and what production asks. A variable that is not valid counts as unset, so later checks still run.
 */
export const readVariables = (
  table: ReadonlyArray<AnyVariable>,
  env: Env,
  context: ConfigContext,
  production: (get: Get) => boolean,
): Read => {
  const problems: Array<string> = []
  const values = new Map<AnyVariable, unknown>()
  const given = new Set<AnyVariable>()
  const get = ((v: AnyVariable) => {
    if (!table.includes(v)) throw new Error(`${v.name} is not in the table of variables`)
    return values.get(v)
  }) as Get
  for (const v of table) {
    const raw = env[v.name]
    if (raw === undefined || raw === '') continue
    const decoded = v.codec.decode(raw)
    if (E.isRight(decoded)) {
      values.set(v, decoded.right)
      given.add(v)
    } else problems.push(`${v.name} ${decoded.left[0]?.message ?? 'is invalid'}`)
  }
  const defaults = table.filter((v) => !values.has(v))
  for (const v of defaults)
    if (v.default !== undefined && 'value' in v.default) values.set(v, v.default.value)
  for (const v of defaults)
    if (v.default !== undefined && 'of' in v.default) values.set(v, v.default.of(get, context))
  // Each check sees a variable as `unknown` here: the table pairs it with its own variable.
  type Check = (value: unknown, get: Get) => ReadonlyArray<string>
  for (const v of table) problems.push(...((v.requires as Check | undefined)?.(values.get(v), get) ?? []))
  if (production(get))
    for (const v of table)
      problems.push(...((v.production?.refuse as Check | undefined)?.(values.get(v), get) ?? []))
  return { get, given: (v) => given.has(v), problems }
}
