"""Who may use a view: the browser that opened the URL ``judgekit view`` printed, and nobody
else — not another local user, not a web page open in the same browser.

- The server listens on 127.0.0.1 only.
- Every request must name the server by its own address in ``Host`` (a page on another
  name that resolves to 127.0.0.1 — DNS rebinding — is refused).
- A random token, in the printed URL once, then in an HttpOnly, SameSite=Strict cookie;
  without it nothing is served (as Jupyter does).
- A request that changes a file (a label, a spent test label) must also come from the
  view's own origin (``Origin``) and carry the form token of the page it was sent from.
- Every response forbids scripts, styles and frames from anywhere but the server itself
  (a strict Content-Security-Policy), so agent text that got past escaping still runs
  nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie

__all__ = ["HEADERS", "Access"]

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` on the
    # view's own forms; run ids in addresses still never leave for another site
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


@dataclass(frozen=True)
class Access:
    """The token of one server on ``port``, and the checks every request goes through."""

    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def cookie_name(self) -> str:
        return f"judgekit_view_{self.port}"

    @property
    def form_token(self) -> str:
        """The token each page's forms carry: derived from the secret, never the secret."""
        return hmac.new(self.token.encode(), b"form", hashlib.sha256).hexdigest()

    def origins(self) -> tuple[str, ...]:
        return (f"http://127.0.0.1:{self.port}", f"http://localhost:{self.port}")

    def host_ok(self, host: str | None) -> bool:
        return host in (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    def has_cookie(self, header: str | None) -> bool:
        if not header:
            return False
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(header)
        except CookieError:  # a malformed Cookie header is a missing cookie
            return False
        morsel = jar.get(self.cookie_name)
        return morsel is not None and hmac.compare_digest(morsel.value, self.token)

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given, self.token)

    def set_cookie(self) -> str:
        return f"{self.cookie_name}={self.token}; HttpOnly; SameSite=Strict; Path=/"

    def write_ok(self, origin: str | None, form_token: str | None) -> str | None:
        """Why a request that writes is refused, or None when it may go on."""
        if origin not in self.origins():
            return "refused: the request did not come from this view's own page (Origin)"
        if form_token is None or not hmac.compare_digest(form_token, self.form_token):
            return "refused: the form's token is missing or wrong; reload the page"
        return None
