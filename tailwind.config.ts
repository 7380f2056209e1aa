import type { Config } from 'tailwindcss';

// Tailwind 4 reads this through `@config` in app/globals.css; theme tokens live here so they are typed.
export default {
  content: ['./app/**/*.{ts,tsx}', './components/**/*.{ts,tsx}'],
  theme: {
    extend: {
      colors: {
        brand: { 50: '#eef6ff', 100: '#d9eaff', 500: '#2563eb', 600: '#1d4ed8', 700: '#1e40af', 900: '#172554' },
        // Button fills and their text: the same in light and dark mode (app/dark.css turns the palette, not these).
        accent: { DEFAULT: '#1d4ed8', hover: '#1e40af' },
        danger: { DEFAULT: '#b91c1c', hover: '#991b1b' },
        'on-accent': '#ffffff',
      },
    },
  },
} satisfies Config;
