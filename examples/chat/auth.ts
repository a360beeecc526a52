// The host app's own sign-in: THE PLACE TO PLUG IN YOUR AUTH. The demo has two users who sign in by a link
// (`/login?user=alice`) and carry an HMAC-signed cookie; a real app reads its session cookie or a JWT here.
// The chat handler only asks `identify(request)` who is asking; the browser never holds a Temporal or API token.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The demo's users. */
export const DEMO_USERS = ['alice', 'bob'] as const;
export type DemoUser = (typeof DEMO_USERS)[number];

const COOKIE = 'chat_user';

/** Signs and reads the user cookie with `secret` (default: `COOKIE_SECRET`, else a random one per process). */
export function cookieAuth(secret: string = process.env.COOKIE_SECRET ?? randomBytes(32).toString('hex')) {
  const sign = (user: string) => createHmac('sha256', secret).update(user).digest('base64url');
  return {
    /** The `Set-Cookie` value that signs `user` in. */
    cookieFor(user: DemoUser): string {
      return `${COOKIE}=${user}.${sign(user)}; Path=/; HttpOnly; SameSite=Lax`;
    },
    /** The signed-in user of a request, or undefined. */
    userOf(request: Request): DemoUser | undefined {
      const cookies = request.headers.get('cookie') ?? '';
      const value = cookies
        .split(';')
        .map((c) => c.trim())
        .find((c) => c.startsWith(`${COOKIE}=`))
        ?.slice(COOKIE.length + 1);
      const [user, mac] = (value ?? '').split('.');
      if (!user || !mac || !(DEMO_USERS as readonly string[]).includes(user)) return undefined;
      const expected = Buffer.from(sign(user));
      const given = Buffer.from(mac);
      return expected.length === given.length && timingSafeEqual(expected, given) ? (user as DemoUser) : undefined;
    },
  };
}
