/**
 * What `load` imports: the package `name`, an optional peer of this package's ./testing entry. Where it is
 * not installed, an Error says so and how to install it (node's own names only the missing package).
 */
export const importOptionalPeer = async <T>(
  name: string,
  range: string,
  load: () => Promise<T>,
): Promise<T> => {
  try {
    return await load()
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (code !== 'ERR_MODULE_NOT_FOUND' || typeof message !== 'string' || !message.includes(`'${name}'`))
      throw error
    throw new Error(
      `@pets/adapters-http/testing needs ${name}, an optional peer dependency of @pets/adapters-http: ` +
        `install it beside it (${name}@${range}, a dev dependency is enough).`,
      { cause: error },
    )
  }
}
