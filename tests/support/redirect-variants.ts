/**
 * Callback URLs that must never send a person to another origin after signing in (issue 11.2).
 * Shared by the unit test of safeCallbackPath and the e2e tests of the login form, the JSON sign-in
 * and /login visited while signed in.
 */
export const OPEN_REDIRECT_VARIANTS = [
  'https://evil.example',
  'http://evil.example/picks',
  '//evil.example',
  '///evil.example',
  '/.//evil.example',
  '/./..//evil.example',
  '/a/..//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/.%2e//evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '/\\/evil.example',
  '/%5c/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n//evil.example',
  '\t//evil.example',
  ' //evil.example',
  'https:evil.example',
  'https:/evil.example',
  'http:\\\\evil.example',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '//evil.example@portal.invalid',
  '/%0d%0aSet-Cookie:x',
  '/..%2f..%2f/evil.example',
  'ftp://evil.example',
];
