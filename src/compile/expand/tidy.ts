// URLs of the security schemes that resolve where the API serves them.

const SCHEMES = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * A URL the declaration gives as a path this API serves (`/token`), as OpenAPI resolves it: a
 * relative reference resolves against the server URL by RFC 3986 (so `/token` under
 * `https://vet.example.com/api` would be `https://vet.example.com/token`, not the endpoint at
 * `/api/token`), and the published 3.1 schema asks for an absolute URI. Joined to the first server
 * (the one the generated server takes its base path from): absolute when that server is, else an
 * absolute path under its path. Absolute URLs are kept as declared.
 */
export function servedUrl(url: string, firstServer: string | undefined): string {
  if (!url.startsWith("/") || url.startsWith("//") || firstServer === undefined) return url;
  const base = firstServer.replace(/\/+$/, "");
  if (SCHEMES.test(base) || base.startsWith("/")) return `${base}${url}`;
  return url;
}
