import { describe, expect, it } from 'vitest';
import { builtRoutes, routeMatcher } from '@/lib/metrics/routes';

/** Request metrics are labelled by route pattern, never by a path that carries an id. */

describe('route patterns for metrics', () => {
  const route = routeMatcher([
    '/',
    '/picks',
    '/picks/[id]',
    '/deliveries/[id]',
    '/api/deliveries/preview',
    '/api/deliveries/[id]',
    '/api/alerts/[id]/resend',
    '/api/auth/[...nextauth]',
    '/docs/[[...slug]]',
    '/api/auth/session',
    '/_not-found',
  ]);

  it('names the pattern, the static one before a dynamic one, and `other` for the rest', () => {
    expect(route('/')).toBe('/');
    expect(route('/picks')).toBe('/picks');
    expect(route('/picks/pk%3A123')).toBe('/picks/[id]');
    expect(route('/api/deliveries/preview')).toBe('/api/deliveries/preview');
    expect(route('/api/deliveries/dlv_0123')).toBe('/api/deliveries/[id]');
    expect(route('/api/alerts/1%3Asport.down%3AGolf/resend')).toBe('/api/alerts/[id]/resend');
    expect(route('/_next/static/chunks/app.js')).toBe('/_next/static');
    expect(route('/wp-admin/setup.php')).toBe('other');
    expect(route('/picks/a/b')).toBe('other');
  });

  it('gives a catch-all one or more segments and an optional one none or more, after every other pattern', () => {
    expect(route('/api/auth/callback/credentials')).toBe('/api/auth/[...nextauth]');
    expect(route('/api/auth/csrf')).toBe('/api/auth/[...nextauth]');
    expect(route('/api/auth/session')).toBe('/api/auth/session');
    expect(route('/api/auth')).toBe('other');
    expect(route('/docs')).toBe('/docs/[[...slug]]');
    expect(route('/docs/a/b')).toBe('/docs/[[...slug]]');
  });

  it('reads the patterns of a build, and none without one', () => {
    expect(builtRoutes('/nonexistent')).toEqual([]);
  });
});
