/**
 * The client API key a request presents: `Bearer <key>` in an `authorization` value, else an `x-api-key`
 * value, whatever carried them (HTTP headers, gRPC metadata). Every face reads keys this way.
 */
export function keyOf(authorization: string | undefined, apiKey: string | undefined): string | undefined {
  const key = authorization && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : apiKey?.trim();
  return key || undefined;
}
