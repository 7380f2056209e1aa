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
// The kit's looks (below): a tinted background, a rounded corner and a border on a container.
const TINT = String.raw`/\bbg-(amber|red|green|sky|emerald|yellow|rose|blue|orange)-(50|100)\b/`;
const ROUNDED = String.raw`/(^|\s)rounded(-[a-z0-9]+)?(\s|$)/`;
const BORDER = String.raw`/(^|\s)border(\s|$)/`;
const CONTAINERS = ['div', 'section', 'article', 'aside', 'header', 'p', 'li', 'form', 'details', 'fieldset']
  .map((n) => `[name.name='${n}']`)
  .join(', ');

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
  // The UI kit's looks come from its components (components/ui/), checked by what the JSX uses: a page's h1 is
  // PageTitle or PageHeader, a tinted box is a Notice (a pill a Badge), a bordered panel a Card (tests/unit/ui-kit.test.ts).
  {
    files: ['app/**/*.tsx', 'components/**/*.tsx'],
    ignores: ['components/ui/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXOpeningElement[name.name='h1']",
          message: 'A page’s title is <PageTitle> or <PageHeader> (components/ui/page-header.tsx).',
        },
        {
          selector: `JSXAttribute[name.name='className'] :matches(Literal[value=${TINT}], TemplateElement[value.raw=${TINT}])`,
          message: 'A tinted box is <Notice tone=…> (components/ui/notice.tsx); a short word in a pill is <Badge tone=…>.',
        },
        {
          selector: `JSXOpeningElement:matches(${CONTAINERS}) > JSXAttribute[name.name='className'] :matches(Literal[value=${ROUNDED}][value=${BORDER}], TemplateElement[value.raw=${ROUNDED}][value.raw=${BORDER}])`,
          message: 'A bordered panel is <Card> or cardClass() (components/ui/card.tsx); nothing to show is <EmptyState>.',
        },
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
