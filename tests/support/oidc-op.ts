import type { AddressInfo } from 'node:net';
import http from 'node:http';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider on loopback (the certified `oidc-provider` package) for the single sign-on
 * tests: one confidential client (the portal), PKCE required, the dev login form (any login whose name
 * is an account below; the password is not checked) and its consent page. Claims asked by scope go into
 * the ID token, which is where next-auth reads the profile from.
 */

export interface OidcAccount {
  email: string;
  /** Left out: the provider does not say. */
  email_verified?: boolean;
  name: string;
  roles: string[];
}

export interface TestOp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The authorization requests it received, as query parameters. */
  authorizations: Record<string, string>[];
  close(): Promise<void>;
}

// This provider knowingly runs oidc-provider's development quick start (memory adapter, its own keys, the dev
// login form): its warnings saying so are held back, so the test output holds test results only.
const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: a quick start development-only')) return;
  warn(...args);
};

export async function startOp(portalOrigin: string, accounts: Record<string, OidcAccount>): Promise<TestOp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'picks-portal';
  const clientSecret = 'portal-client-secret-0123456789abcdef';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${portalOrigin}/api/auth/callback/oidc`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'roles'] },
    conformIdTokenClaims: false,
    cookies: { keys: ['op-cookie-key-for-tests-only-0123456789'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const account = accounts[id];
      if (!account) return undefined;
      // The subject is the login, except where a test gives another identity the same email (`sub` then differs).
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
  });
  const authorizations: Record<string, string>[] = [];
  const callback = provider.callback();
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/auth') authorizations.push(Object.fromEntries(url.searchParams));
    callback(req, res);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
