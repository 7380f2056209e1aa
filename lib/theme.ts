/** Light, dark, or the system's choice: the `theme` cookie as the pages read it (components/theme-switch.tsx writes it). */
export type Theme = 'system' | 'light' | 'dark';

export const themeOf = (value: string | undefined): Theme => (value === 'light' || value === 'dark' ? value : 'system');
