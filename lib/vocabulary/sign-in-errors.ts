/**
 * What the login page says for each reason a sign-in did not happen: next-auth's own error codes, and the
 * portal's single sign-on refusals (lib/auth/oidc.ts), passed back as `/login?error=<code>`. No server
 * code here: the login form (a client component) reads it too.
 */
export const SIGN_IN_ERRORS: Record<string, string> = {
  CredentialsSignin: 'That email and password do not match an account.',
  OAuthSignin: 'Single sign-on could not start. Try again.',
  OAuthCallback: 'Single sign-on failed. Try again.',
  AccessDenied: 'This account may not use the portal. Ask an administrator.',
  SessionRequired: 'Sign in to continue.',
  SsoNoEmail: 'Your identity provider sent no email address.',
  SsoUnverified: 'Your email address is not verified by your identity provider.',
  SsoDomain: 'Your email domain may not use this portal.',
  SsoNoRole: 'Your account has no portal role. Ask an administrator.',
  SsoDisabled: 'An administrator disabled your portal account.',
  SsoPasswordAccount: 'This email address has a portal password: sign in with it instead.',
  SsoOtherSubject: 'This email address belongs to another single sign-on identity. Ask an administrator.',
};

export type SsoRefusal =
  'SsoNoEmail' | 'SsoUnverified' | 'SsoDomain' | 'SsoNoRole' | 'SsoDisabled' | 'SsoPasswordAccount' | 'SsoOtherSubject';
