"""Mail the site sends, readable as written: on the console of `make serve`, in a file, and in a mail client.

Python's mail writer keeps a body's lines within 78 characters by default; a longer line (a link with its
token) makes it encode the whole body as quoted-printable, which breaks the link over two lines with a trailing
`=` wherever the raw text is read. The site's mails allow lines up to RFC 5322's limit of 998 characters, so a
body is sent as written: 7bit when it is ASCII, 8bit (UTF-8) otherwise, every link whole on its line.
"""

from __future__ import annotations

import email.policy

from django.core.mail import EmailMessage

LINE_LIMIT = 998  # RFC 5322 2.1.1: a line of a message is at most 998 characters


class ReadableMail(EmailMessage):
    def message(self, *, policy=email.policy.default):
        return super().message(policy=policy.clone(max_line_length=LINE_LIMIT))


def mail_send(*, to: str, subject: str, body: str) -> None:
    """Send one plain-text mail from DEFAULT_FROM_EMAIL; the back-end's error (OSError for SMTP) escapes."""
    ReadableMail(subject=subject, body=body, to=[to]).send()
