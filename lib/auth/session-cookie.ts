/** The session cookie's name: __Host- binds it to this exact origin over https; the plain name over http (local sandbox). */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-portal.session' : 'portal.session';
}
