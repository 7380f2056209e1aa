import type { Config } from 'tailwindcss';

// Tailwind 4 reads this through `@config` in app/globals.css; theme tokens live here so they are typed.
export default {
  content: ['./app/**/*.{ts,tsx}', './components/**/*.{ts,tsx}'],
  theme: {
    extend: {
      colors: {
        brand: { 50: '#eef6ff', 100: '#d9eaff', 500: '#2563eb', 600: '#1d4ed8', 700: '#1e40af', 900: '#172554' },
      },
    },
  },
} satisfies Config;
