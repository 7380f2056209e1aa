import type { Config } from 'tailwindcss';

// Tailwind 4 reads this through `@config` in app/globals.css. Colours that turn in dark mode (brand) are CSS
// variables in app/globals.css's @theme instead: colours set here are written into each class as they are.
export default {
  content: ['./app/**/*.{ts,tsx}', './components/**/*.{ts,tsx}'],
  theme: {
    extend: {
      colors: {
        // Button fills and their text: the same in light and dark mode (app/dark.css turns the palette, not these).
        accent: { DEFAULT: '#1d4ed8', hover: '#1e40af' },
        danger: { DEFAULT: '#b91c1c', hover: '#991b1b' },
        'on-accent': '#ffffff',
      },
    },
  },
} satisfies Config;
