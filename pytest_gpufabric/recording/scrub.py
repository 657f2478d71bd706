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

# One of these is in every match of _SECRET_WORD (lower-cased): its words, api/access/private with each joint.
_SECRET_WORDS = ("passw", "passphrase", "secret", "token",
                 *(f"{word}{joint}key" for word in ("api", "access", "private") for joint in ("", "_", "-")))

# Each built-in pattern with its words: lower-case text of which at least one appears in any text the pattern
# matches (lower-cased), so a text with none of them is not searched with it (most outputs hold none of them).
DEFAULTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # PEM private key blocks (also a block cut off before its END line): the key body.
    (r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?P<secret>.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
     ("private key",)),
    # ... and a key body before its END line whose BEGIN line lost its start (a shortened repr: "...IN RSA
    # PRIVATE KEY-----\\nMIIE...\\n-----END RSA PRIVATE KEY-----"): no "-----" in between.
    (r"(?s)PRIVATE KEY-----(?P<secret>(?:(?!-----).)+)-----END [A-Z0-9 ]*PRIVATE KEY-----", ("private key",)),
    # HTTP authorization headers, keeping the scheme: "Authorization: Bearer <scrubbed>".
    (r"(?i)\b(?:proxy-)?authorization[ \t]*:[ \t]*(?:(?:basic|bearer|token|digest|negotiate)[ \t]+)?"
     r"(?P<secret>[^\r\n'\"]+)", ("authorization",)),
    # sshpass -p ARG (also -pARG), ipmitool ... -P ARG.
    (rf"\bsshpass\b(?:[ \t]+-[A-Za-z](?:[ \t]+\S+)?)*?[ \t]+-p[ \t]*{_VALUE}", ("sshpass",)),
    (rf"\bipmitool\b[^\n]*?[ \t]-P[ \t]*{_VALUE}", ("ipmitool",)),
    # Command-line options: --password ARG, --db-token=ARG, -secret ARG.
    (rf"(?i)(?<![\w-])--?{_SECRET_NAME}(?:[ \t]+|=){_VALUE}", _SECRET_WORDS),
    # Assignments in commands, environments, configs and JSON: password=..., "token": "...", secret: ...
    (rf"""(?i)(?<![\w.-]){_SECRET_NAME}(?![\w.-])["']?[ \t]*[:=][ \t]*{_VALUE}""", _SECRET_WORDS),
    # Credentials in URLs: scheme://user:PASSWORD@host.
    (r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<secret>[^/\s@]+)@", ("://",)),
    # Switch configurations (EOS and other industry-standard CLIs): username/enable secrets and passwords with
    # their hash type, TACACS+/RADIUS keys, SNMP communities; Junos quoted secrets; SONiC's TACACS+ passkey.
    (r"(?im)^[ \t]*(?:username[ \t]+\S+[^\n]*?[ \t]|enable[ \t]+)(?:secret|password)[ \t]+"
     r"(?:(?:sha512|md5|\d)[ \t]+)?(?P<secret>\S+)", ("secret", "password")),
    (r"(?im)^[ \t]*(?:tacacs|radius)-server\b[^\n]*?[ \t]key[ \t]+(?:\d[ \t]+)?(?P<secret>\S+)", ("tacacs", "radius")),
    (r"(?im)^[ \t]*snmp-server[ \t]+community[ \t]+(?P<secret>\S+)", ("snmp-server",)),
    (r"(?i)\b(?:encrypted-password|authentication-key|secret)[ \t]+\"(?P<secret>[^\"\n]*)\"",
     ("encrypted-password", "authentication-key", "secret")),
    (r'(?i)"passkey"[ \t]*:[ \t]*"(?P<secret>[^"\n]*)"', ('"passkey"',)),
)
DEFAULT_PATTERNS: tuple[str, ...] = tuple(source for source, _ in DEFAULTS)


_CACHE_LIMIT = 4096  # texts
_CACHE_CHARS = 16 * 2**20  # characters of cached texts: outputs recur too (one output judged by many items)


class Scrubber:
    """Replaces the secret part of every match of its patterns with ``<scrubbed>``.

    Each pattern is a regular expression; the part replaced is its group named ``secret`` if it has
    one, else its first group if it has groups, else the whole match. A quoted secret keeps its quotes.
    ``patterns`` are added to the built-in ``DEFAULT_PATTERNS``; an invalid one raises ``UsageError``.
    A built-in pattern searches only an ASCII text that holds one of its words (``DEFAULTS``); a text of other
    characters (where a case-blind match need not be one of the text's lower case) is searched with every one.
    """

    def __init__(self, patterns: Sequence[str] = (), *, defaults: bool = True) -> None:
        given: tuple[tuple[str, tuple[str, ...]], ...] = tuple((source, ()) for source in patterns)
        sources = (*DEFAULTS, *given) if defaults else given
        # each pattern with its words (none: a configured pattern, searched in every text)
        self._patterns = tuple((_compile(source), words) for source, words in sources)
        self._cache: dict[str, str] = {}  # texts recur (titles, hints, ids, outputs of cached facts): scrubbed once
        self._cached_chars = 0

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(pattern.pattern for pattern, _ in self._patterns)

    def scrub(self, text: str) -> str:
        """``text`` with every secret replaced by ``<scrubbed>``."""
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        scrubbed = text
        lowered = text.lower() if text.isascii() else None  # ASCII: a case-blind match is one of its lower case
        for pattern, words in self._patterns:
            if words and lowered is not None and not any(word in lowered for word in words):
                continue  # none of the words without which the pattern cannot match
            replaced = pattern.sub(_replace_secret, scrubbed)
            if replaced != scrubbed:
                scrubbed = replaced
                lowered = scrubbed.lower() if scrubbed.isascii() else None
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
