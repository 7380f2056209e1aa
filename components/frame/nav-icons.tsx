import {
  Activity,
  BadgeCheck,
  Bell,
  BookOpenText,
  ClipboardList,
  FileDown,
  FileText,
  GitCompareArrows,
  History,
  House,
  KeyRound,
  Map as MapIcon,
  Send,
  Target,
  Trophy,
  Users,
} from 'lucide-static';
import type { NavIcon } from './destinations';

/** The drawing for each destination (lucide's markup, drawn by components/ui/icon.tsx), decorative: the link's name is its text. */
export const NAV_ICONS: Record<NavIcon, string> = {
  overview: House,
  licence: FileText,
  picks: Target,
  results: Trophy,
  changes: GitCompareArrows,
  history: History,
  health: Activity,
  coverage: MapIcon,
  alerts: Bell,
  exports: FileDown,
  deliveries: Send,
  tokens: KeyRound,
  developers: BookOpenText,
  users: Users,
  audit: ClipboardList,
  proofs: BadgeCheck,
};
