/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // SFTP deliveries: ssh2 may load a native addon, which the bundler cannot place; Node requires them at run time.
  serverExternalPackages: ['ssh2', 'ssh2-sftp-client', 'cpu-features'],
  reactStrictMode: true,
  // npm test type-checks the whole tree (tsc) before it builds: PORTAL_BUILD_TYPES_CHECKED=1 spares the build doing it twice.
  typescript: { ignoreBuildErrors: process.env.PORTAL_BUILD_TYPES_CHECKED === '1' },
  // forbidden() and forbidden.tsx for role refusals (403), beside notFound().
  // PORTAL_PROFILE_BUILD=1 keeps server function names, so a CPU profile (README, Performance) reads.
  experimental: { authInterrupts: true, serverMinification: process.env.PORTAL_PROFILE_BUILD !== '1' },
  // The security headers that do not depend on the request; the CSP (per-request nonce) and HSTS
  // (depends on the runtime NEXTAUTH_URL) are set by lib/http/request-policy.ts.
  async headers() {
    const common = [
      { key: 'X-Content-Type-Options', value: 'nosniff' },
      { key: 'Referrer-Policy', value: 'no-referrer' },
      { key: 'X-Frame-Options', value: 'DENY' },
      { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
      { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
    ];
    return [
      // Hashed static assets keep their own immutable caching; exports and coverage set theirs
      // (no-transform: compressing would hold back their streamed lines and cost CPU).
      { source: '/((?!_next/static|api/export|api/coverage).*)', headers: [{ key: 'Cache-Control', value: 'private, no-store' }] },
      { source: '/((?!_next/static).*)', headers: common },
    ];
  },
};

export default nextConfig;
