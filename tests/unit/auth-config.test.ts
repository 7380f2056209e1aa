import { describe, expect, it } from 'vitest';
import { oidcRefusal, parseOidcConfig, roleFromClaims } from '@/lib/config/oidc';
import { can } from '@/lib/vocabulary/roles';
import { ConfigError, parseConfig } from '@/lib/config';
import { hashPassword, verifyPassword } from '@/lib/auth/passwords';

const base = { PICKS_API_BASE_URL: 'https://api.example.com', PICKS_API_KEY: 'k-123' };

describe('configuration', () => {
  it('applies defaults and strips a trailing slash', () => {
    const config = parseConfig({ ...base, PICKS_API_BASE_URL: 'https://api.example.com/' });
    expect(config).toMatchObject({ PICKS_API_BASE_URL: 'https://api.example.com', PORT: 3000, oidc: null });
  });

  it.each([
    [{ PICKS_API_BASE_URL: undefined }, 'PICKS_API_BASE_URL is required'],
    [{ PICKS_API_BASE_URL: 'ftp://x' }, 'PICKS_API_BASE_URL must be an http(s) URL'],
    [{ PICKS_API_BASE_URL: 'https://x/api/v1' }, 'PICKS_API_BASE_URL must not end with /api/v1'],
    [{ PICKS_API_KEY: '' }, 'PICKS_API_KEY'],
    [{ PICKS_API_KEY: 'has space' }, 'PICKS_API_KEY must be printable ASCII'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORTAL_IMAGE_ORIGINS: 'https://cdn.example.com, javascript:alert(1)' }, 'PORTAL_IMAGE_ORIGINS has "javascript:alert(1)"'],
    [{ OIDC_ISSUER: 'https://id.example.com' }, 'OIDC_CLIENT_ID, OIDC_CLIENT_SECRET must be set too'],
    [{ AUTH_SECRET: 'only-31-bytes-long-secret-value' }, 'AUTH_SECRET must be at least 32 bytes'],
    [{ NEXTAUTH_SECRET: 'short' }, 'NEXTAUTH_SECRET must be at least 32 bytes'],
    [{ PICKS_API_BASE_URL: 'http://api.example.com' }, 'PICKS_API_BASE_URL must use https unless the upstream is on this machine'],
    [{ PICKS_API_BASE_URL: 'http://10.0.0.5:8080' }, 'PICKS_API_ALLOW_INSECURE=1'],
    [{ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32) }, 'NEXTAUTH_URL is required in production'],
    [{ NODE_ENV: 'production', NEXTAUTH_URL: 'https://portal.example.com' }, 'AUTH_SECRET is required in production'],
    [{ TRUSTED_PROXIES: '10.0.0.1, proxy.example' }, 'TRUSTED_PROXIES has "proxy.example"'],
    [{ SESSION_MAX_HOURS: '0' }, 'SESSION_MAX_HOURS'],
    [{ PICKS_ME_FIELDS: 'league:licence.leagues' }, 'PICKS_ME_FIELDS has the unknown field "league"'],
    [{ PICKS_ME_CACHE_SECONDS: '-1' }, 'PICKS_ME_CACHE_SECONDS'],
    [{ MAX_CONCURRENT_EXPORTS: '0' }, 'MAX_CONCURRENT_EXPORTS'],
    [{ CHANGES_POLL_SECONDS: '1' }, 'CHANGES_POLL_SECONDS must be 0 (off) or at least 2 seconds'],
    [{ CHANGES_DIGEST_IGNORE: 'homeTeamLogoUrl, a.b' }, 'CHANGES_DIGEST_IGNORE has "a.b", which is not a field name'],
    [{ DELIVERY_SECRET_KEY: 'short' }, 'DELIVERY_SECRET_KEY must be at least 32 characters'],
    [{ DELIVERY_MIN_INTERVAL_MINUTES: '0' }, 'DELIVERY_MIN_INTERVAL_MINUTES'],
    [{ DELIVERY_MAX_PER_USER: '0' }, 'DELIVERY_MAX_PER_USER'],
    [{ DELIVERY_SPOOL_MIN_FREE_MB: '-1' }, 'DELIVERY_SPOOL_MIN_FREE_MB'],
    [{ PORTAL_MAX_BODY_KB: '0' }, 'PORTAL_MAX_BODY_KB'],
    [{ SESSION_STORE_GRACE_SECONDS: 'soon' }, 'SESSION_STORE_GRACE_SECONDS'],
  ])('names the variable of a wrong value (%o)', (change, message) => {
    expect(() => parseConfig({ ...base, ...change })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, ...change })).toThrow(message);
  });

  it('has limits on deliveries, bodies and the store grace by default; a minimum interval of 1 minute is allowed', () => {
    expect(parseConfig(base)).toMatchObject({
      DELIVERY_MAX_PER_USER: 20,
      DELIVERY_MIN_INTERVAL_MINUTES: 15,
      DELIVERY_SPOOL_MIN_FREE_MB: 1024,
      PORTAL_MAX_BODY_KB: 1024,
      SESSION_STORE_GRACE_SECONDS: 60,
    });
    expect(parseConfig({ ...base, DELIVERY_MIN_INTERVAL_MINUTES: '1' }).DELIVERY_MIN_INTERVAL_MINUTES).toBe(1);
  });

  it('accepts plain http for loopback upstreams, or when the risk is accepted explicitly', () => {
    expect(parseConfig({ ...base, PICKS_API_BASE_URL: 'http://127.0.0.1:4010' }).PICKS_API_BASE_URL).toBe('http://127.0.0.1:4010');
    expect(parseConfig({ ...base, PICKS_API_BASE_URL: 'http://localhost:4010' }).PICKS_API_BASE_URL).toBe('http://localhost:4010');
    expect(parseConfig({ ...base, PICKS_API_BASE_URL: 'http://api.internal', PICKS_API_ALLOW_INSECURE: '1' }).PICKS_API_BASE_URL).toBe(
      'http://api.internal',
    );
  });

  it('starts in production with a public URL and a long secret, or on the sandbox npm start launched', () => {
    const production = { ...base, NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32) };
    expect(parseConfig({ ...production, NEXTAUTH_URL: 'https://portal.example.com' }).NEXTAUTH_URL).toBe('https://portal.example.com');
    expect(parseConfig({ ...production, PORTAL_SANDBOX: '1' }).PORTAL_SANDBOX).toBe(true);
    expect(parseConfig(base)).toMatchObject({
      SESSION_MAX_HOURS: 8,
      MAX_CONCURRENT_EXPORTS: 4,
      MAX_EXPORTS_PER_USER: 2,
      PORTAL_SANDBOX: false,
    });
  });

  it('never puts the key in its error message', () => {
    try {
      parseConfig({ ...base, PICKS_API_KEY: 'secret value with spaces' });
    } catch (error) {
      expect(String(error)).not.toContain('secret value');
    }
  });
});

describe('OIDC configuration', () => {
  const oidc = { OIDC_ISSUER: 'https://id.example.com/', OIDC_CLIENT_ID: 'portal', OIDC_CLIENT_SECRET: 's' };

  it('is off unless configured', () => expect(parseOidcConfig({})).toBeNull());

  it('parses the role map and default', () => {
    const config = parseOidcConfig({
      ...oidc,
      OIDC_ROLE_MAP: 'picks-editors=editor, picks-admins=admin',
      OIDC_ROLE_CLAIM: 'groups',
      OIDC_DEFAULT_ROLE: 'viewer',
    });
    expect(config).toMatchObject({
      issuer: 'https://id.example.com',
      roleClaim: 'groups',
      roleMap: { 'picks-editors': 'editor', 'picks-admins': 'admin' },
      defaultRole: 'viewer',
    });
    expect(roleFromClaims({ groups: ['staff', 'picks-editors', 'picks-admins'] }, config!)).toBe('admin');
    expect(roleFromClaims({ groups: 'picks-editors' }, config!)).toBe('editor');
    expect(roleFromClaims({ groups: ['staff'] }, config!)).toBe('viewer');
  });

  it('refuses people with no mapped role when there is no default', () => {
    const config = parseOidcConfig({ ...oidc, OIDC_ROLE_MAP: 'a=editor' });
    expect(roleFromClaims({ roles: ['b'] }, config!)).toBeNull();
  });

  it('maps roles only through OIDC_ROLE_MAP: a group named like a role grants nothing', () => {
    const config = parseOidcConfig({ ...oidc, OIDC_ROLE_MAP: 'picks-viewers=viewer' })!;
    expect(roleFromClaims({ roles: ['admin', 'editor', 'manager'] }, config)).toBeNull();
    expect(roleFromClaims({ roles: 'admin picks-viewers' }, config)).toBe('viewer');
    expect(roleFromClaims({ roles: ['__proto__', 'constructor', 'toString'] }, config)).toBeNull();
  });

  it('honours email_verified and OIDC_ALLOWED_DOMAINS', () => {
    const config = parseOidcConfig({ ...oidc, OIDC_ALLOWED_DOMAINS: 'partner.example, @Group.example' })!;
    expect(config.allowedDomains).toEqual(['partner.example', 'group.example']);
    expect(oidcRefusal({ email: 'ana@partner.example', email_verified: true }, config)).toBeNull();
    // A provider that does not say the email is verified is refused, unless told that it never says.
    expect(config.requireEmailVerified).toBe(true);
    expect(oidcRefusal({ email: 'ana@group.example' }, config)).toBe('SsoUnverified');
    expect(oidcRefusal({ email: 'ana@group.example', email_verified: 'true' }, config)).toBeNull();
    const lenient = parseOidcConfig({ ...oidc, OIDC_REQUIRE_EMAIL_VERIFIED: 'false' })!;
    expect(oidcRefusal({ email: 'ana@group.example' }, lenient)).toBeNull();
    expect(oidcRefusal({ email: 'ana@group.example', email_verified: false }, lenient)).toBe('SsoUnverified');
    expect(() => parseOidcConfig({ ...oidc, OIDC_REQUIRE_EMAIL_VERIFIED: 'maybe' })).toThrow(
      /OIDC_REQUIRE_EMAIL_VERIFIED must be true or false/,
    );
    expect(oidcRefusal({ email: 'ana@partner.example', email_verified: false }, config)).toBe('SsoUnverified');
    expect(oidcRefusal({ email: 'ana@evil.example', email_verified: true }, config)).toBe('SsoDomain');
    expect(oidcRefusal({ sub: '123' }, config)).toBe('SsoNoEmail');
  });

  it.each([
    [{ OIDC_ROLE_MAP: 'a=owner' }, 'OIDC_ROLE_MAP'],
    [{ OIDC_DEFAULT_ROLE: 'root' }, 'OIDC_DEFAULT_ROLE'],
    [{ OIDC_ISSUER: 'not a url' }, 'OIDC_ISSUER'],
    [{ OIDC_ISSUER: 'http://id.example.com' }, 'OIDC_ISSUER must use https'],
    [{ OIDC_ALLOWED_DOMAINS: 'partner.example, not a domain' }, 'OIDC_ALLOWED_DOMAINS has "not a domain"'],
  ])('rejects %o', (change, message) => expect(() => parseOidcConfig({ ...oidc, ...change })).toThrow(message));
});

describe('roles', () => {
  it('grants by capability', () => {
    expect([can('viewer', 'export'), can('editor', 'export'), can('manager', 'export'), can('admin', 'export')]).toEqual([
      false,
      true,
      false,
      true,
    ]);
    expect([can('viewer', 'coverage'), can('editor', 'coverage'), can('manager', 'coverage'), can('admin', 'coverage')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(can(null, 'browse')).toBe(false);
  });
});

describe('passwords', () => {
  it('hashes with a salt and verifies', async () => {
    const [a, b] = [await hashPassword('correct horse'), await hashPassword('correct horse')];
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('wrong horse', a)).toBe(false);
  });
});

describe('errors from another bundled copy of lib/errors', () => {
  it('are still recognised, keeping their code, status and requestId', async () => {
    const { toAppError } = await import('@/lib/errors');
    // What Next's per-layer bundling produces: the same class, defined twice.
    class AppError extends Error {
      name = 'AppError';
      constructor(
        readonly status: number,
        readonly code: string,
        readonly requestId: string,
      ) {
        super('Licence access is unavailable.');
      }
      toJSON() {
        return { status: this.status, code: this.code };
      }
      toResponse() {
        return new Response(null, { status: this.status });
      }
    }
    expect(toAppError(new AppError(403, 'LICENCE_UNAVAILABLE', 'req_x'))).toMatchObject({
      status: 403,
      code: 'LICENCE_UNAVAILABLE',
      requestId: 'req_x',
    });
    expect(toAppError(new Error('boom'))).toMatchObject({ status: 500, code: 'INTERNAL' });
  });
});
