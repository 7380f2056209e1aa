import type { Capability, Role } from '@/lib/vocabulary/roles';

/**
 * For vi.mock('@/lib/http/session') in tests of server actions: the session is whatever the test says, and
 * `sessionMay` asks the real one rule for who may act (lib/auth/principal.ts) about it, as the portal does.
 */
export type MockedSession = { current: null | { user: { email: string; role: string } } };

export function sessionModule(session: MockedSession) {
  return {
    getPortalSession: async () => session.current,
    sessionMay: async (capability: Capability) => {
      const current = session.current;
      if (!current) return null;
      const { mayAct } = await import('@/lib/auth/principal');
      const person = { kind: 'person' as const, email: current.user.email, role: current.user.role as Role };
      return (await mayAct(person, capability)).ok ? current : null;
    },
  };
}
