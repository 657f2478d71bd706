"""Removal of secrets (passwords, tokens, private keys) from commands and outputs before they are stored.

The same ``Scrubber`` is applied when an episode is saved and when a command is looked up, so a
command that carried a secret still matches its recording (as vcrpy's filters do). Scrubbing is
idempotent: ``scrub(scrub(text)) == scrub(text)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_gpufabric.errors import UsageError

SCRUBBED = "<scrubbed>"

# A secret value: a quoted string (quotes kept) or a run of non-blank characters.
_VALUE = r"""(?P<secret>"[^"\n]*"|'[^'\n]*'|\S+)"""
# Names of settings that hold secrets: a secret word as a whole component of the name, with optional
# components before and after (DB_PASSWORD, auth_token, X-Api-Key, --token-file), but not --max-tokens.
_SECRET_WORD = r"(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)"
_SECRET_NAME = rf"(?:[A-Za-z0-9]+[_.-])*{_SECRET_WORD}(?:[_.-][A-Za-z0-9_.-]*)?"

DEFAULT_PATTERNS: tuple[str, ...] = (
    # PEM private key blocks (also a block cut off before its END line): the key body.
    r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?P<secret>.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
    # ... and a key body before its END line whose BEGIN line lost its start (a shortened repr: "...IN RSA
    # PRIVATE KEY-----\\nMIIE...\\n-----END RSA PRIVATE KEY-----"): no "-----" in between.
    r"(?s)PRIVATE KEY-----(?P<secret>(?:(?!-----).)+)-----END [A-Z0-9 ]*PRIVATE KEY-----",
    # HTTP authorization headers, keeping the scheme: "Authorization: Bearer <scrubbed>".
    r"(?i)\b(?:proxy-)?authorization[ \t]*:[ \t]*(?:(?:basic|bearer|token|digest|negotiate)[ \t]+)?"
    r"(?P<secret>[^\r\n'\"]+)",
    # sshpass -p ARG (also -pARG), ipmitool ... -P ARG.
    rf"\bsshpass\b(?:[ \t]+-[A-Za-z](?:[ \t]+\S+)?)*?[ \t]+-p[ \t]*{_VALUE}",
    rf"\bipmitool\b[^\n]*?[ \t]-P[ \t]*{_VALUE}",
    # Command-line options: --password ARG, --db-token=ARG, -secret ARG.
    rf"(?i)(?<![\w-])--?{_SECRET_NAME}(?:[ \t]+|=){_VALUE}",
    # Assignments in commands, environments, configs and JSON: password=..., "token": "...", secret: ...
    rf"""(?i)(?<![\w.-]){_SECRET_NAME}(?![\w.-])["']?[ \t]*[:=][ \t]*{_VALUE}""",
    # Credentials in URLs: scheme://user:PASSWORD@host.
    r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<secret>[^/\s@]+)@",
    # Switch configurations (EOS and other industry-standard CLIs): username/enable secrets and passwords with
    # their hash type, TACACS+/RADIUS keys, SNMP communities; Junos quoted secrets; SONiC's TACACS+ passkey.
    r"(?im)^[ \t]*(?:username[ \t]+\S+[^\n]*?[ \t]|enable[ \t]+)(?:secret|password)[ \t]+"
    r"(?:(?:sha512|md5|\d)[ \t]+)?(?P<secret>\S+)",
    r"(?im)^[ \t]*(?:tacacs|radius)-server\b[^\n]*?[ \t]key[ \t]+(?:\d[ \t]+)?(?P<secret>\S+)",
    r"(?im)^[ \t]*snmp-server[ \t]+community[ \t]+(?P<secret>\S+)",
    r"(?i)\b(?:encrypted-password|authentication-key|secret)[ \t]+\"(?P<secret>[^\"\n]*)\"",
    r'(?i)"passkey"[ \t]*:[ \t]*"(?P<secret>[^"\n]*)"',
)


_CACHE_LIMIT = 4096  # texts
_CACHE_CHARS = 16 * 2**20  # characters of cached texts: outputs recur too (one output judged by many items)


class Scrubber:
    """Replaces the secret part of every match of its patterns with ``<scrubbed>``.

    Each pattern is a regular expression; the part replaced is its group named ``secret`` if it has
    one, else its first group if it has groups, else the whole match. A quoted secret keeps its quotes.
    ``patterns`` are added to the built-in ``DEFAULT_PATTERNS``; an invalid one raises ``UsageError``.
    """

    def __init__(self, patterns: Sequence[str] = (), *, defaults: bool = True) -> None:
        sources = (*DEFAULT_PATTERNS, *patterns) if defaults else tuple(patterns)
        self._patterns = tuple(_compile(source) for source in sources)
        self._cache: dict[str, str] = {}  # texts recur (titles, hints, ids, outputs of cached facts): scrubbed once
        self._cached_chars = 0

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(pattern.pattern for pattern in self._patterns)

    def scrub(self, text: str) -> str:
        """``text`` with every secret replaced by ``<scrubbed>``."""
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        scrubbed = text
        for pattern in self._patterns:
            scrubbed = pattern.sub(_replace_secret, scrubbed)
        if len(text) <= _CACHE_CHARS:
            if len(self._cache) >= _CACHE_LIMIT or self._cached_chars + len(text) > _CACHE_CHARS:
                self._cache.clear()
                self._cached_chars = 0
            self._cache[text] = text if scrubbed == text else scrubbed
            self._cached_chars += len(text)
        return scrubbed


def _compile(source: str) -> re.Pattern[str]:
    try:
        compiled = re.compile(source)
    except re.error as exc:
        raise UsageError(f"invalid scrub pattern {source!r}: {exc}") from None
    if compiled.match(""):
        raise UsageError(f"invalid scrub pattern {source!r}: it matches the empty string")
    return compiled


def _secret_group(match: re.Match[str]) -> int | str:
    if "secret" in match.re.groupindex:
        return "secret"
    return 1 if match.re.groups else 0


def _replace_secret(match: re.Match[str]) -> str:
    group = _secret_group(match)
    start, end = match.span(group)
    if start < 0:  # an optional secret group that took no part in the match
        return match.group(0)
    secret = match.group(group)
    replacement = SCRUBBED
    if len(secret) >= 2 and secret[0] == secret[-1] and secret[0] in "'\"":
        replacement = f"{secret[0]}{SCRUBBED}{secret[0]}"
    offset = match.start(0)
    whole = match.group(0)
    return whole[: start - offset] + replacement + whole[end - offset :]
