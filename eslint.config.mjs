import { defineConfig, globalIgnores } from 'eslint/config';
import nextPlugin from '@next/eslint-plugin-next';
import prettier from 'eslint-config-prettier/flat';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import react from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Next's rules (Core Web Vitals), React and its hooks, accessibility, typescript-eslint; formatting is Prettier's.
// These are the plugins eslint-config-next bundles, named one by one: its import resolver needs native
// packages the registry these machines use does not carry for every platform, which breaks `npm ci`.
export default defineConfig([
  ...tseslint.configs.recommended,
  react.configs.flat.recommended,
  react.configs.flat['jsx-runtime'],
  reactHooks.configs.flat['recommended-latest'],
  jsxA11y.flatConfigs.recommended,
  nextPlugin.configs['core-web-vitals'],
  prettier,
  {
    settings: { react: { version: 'detect' } },
    rules: {
      'react/prop-types': 'off', // TypeScript checks props
      // A labelled, focusable scrolling region (role="region") is how keyboard users scroll a wide table (axe: scrollable-region-focusable).
      'jsx-a11y/no-noninteractive-tabindex': ['error', { tags: [], roles: ['tabpanel', 'region'] }],
      // Links go through components/portal-link.tsx, which never prefetches (dynamic pages: README, Performance).
      'no-restricted-imports': ['error', { paths: [{ name: 'next/link', message: 'Use PortalLink from @/components/portal-link.' }] }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  { files: ['components/portal-link.tsx'], rules: { 'no-restricted-imports': 'off' } },
  globalIgnores([
    '.next/**',
    'bench/bare-page/.next/**',
    '**/next-env.d.ts',
    'node_modules/**',
    'test-results/**',
    'test-results-standalone/**',
    'playwright-report/**',
    'bench-results/**',
    '.data/**',
  ]),
]);
