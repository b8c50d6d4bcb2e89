// RFC 8288: `<target>; param; rel="a b"`, several links separated by commas. A target holds no
// `<`: a match from each `<` stops at the next one, where `[^>]*` would run to the header's end.
const LINK = /<([^<>]*)>((?:\s*;\s*[^;,]*)*)/g
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i

/** The target of the link with relation `next` in a Link header, resolved against `base`. */
export const nextLinkOf = (header: string | null, base: string): URL | undefined => {
  if (header === null) return undefined
  for (const [, target = '', params = ''] of header.matchAll(LINK)) {
    const rel = REL.exec(params)
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)
    if (relations.includes('next') && URL.canParse(target, base)) return new URL(target, base)
  }
  return undefined
}

/**
 * Where to ask for the next page. A link to another origin than `baseUrl` (the service's PUBLIC_BASE_URL)
 * is followed at `baseUrl` with its query, since the API key goes to that origin only; so is one with
 * credentials (`user:password@`), which fetch would refuse, quoting them.
 */
export const nextPageUrl = (link: URL, baseUrl: string): string => {
  const base = new URL(baseUrl)
  const sendable = link.origin === base.origin && link.username === '' && link.password === ''
  return sendable ? link.href : `${baseUrl}/pets${link.search}`
}
