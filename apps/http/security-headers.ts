/**
 * The security headers of every answer of the HTTP API and its console: a strict Content-Security-Policy
 * (the console's own files only, no inline script or style, no framing), `X-Frame-Options: DENY`,
 * `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 */
import type { MiddlewareHandler } from 'hono';

/** The Content-Security-Policy sent with every answer. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers, by name. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Middleware setting {@link SECURITY_HEADERS} on every answer, errors and refusals included. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  };
}
