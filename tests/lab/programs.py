"""Which programs a shell command line starts: the first word of each simple command, through the
wrappers that start another program (``env``, ``timeout``, ``sudo``, ``exec``), into the scripts of
``sh -c`` / ``bash -c`` and into the remote command of ``ssh``. A script's own shell functions start what
follows ``--`` in their calls (the runner of the mesh scripts: ``job LABEL -- PROGRAM ARGS``); arithmetic
(``((...))``, ``$((...))``) and array values (``NAME=(...)``) start nothing."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from pytest_gpufabric.recording.nodefile import parse_node_file

OPERATORS = frozenset({";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "\n"})
# Words that start a simple command but are the shell's own (no program is started for them).
SHELL_WORDS = frozenset({
    "!", "{", "}", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "in", ":", ".", "true", "false", "cd", "echo", "printf", "test", "[", "read", "export", "set", "unset",
    "source", "return", "exit", "shift", "local", "wait", "trap", "eval", "mapfile", "continue", "break",
})  # fmt: skip
FUNCTION = re.compile(r"(?m)^\s*([A-Za-z_]\w*)\(\)\s*\{")
ARITHMETIC = re.compile(r"\$?\(\([^()]*\)\)")
ARRAY_VALUE = re.compile(r"\b([A-Za-z_]\w*)=\([^()]*\)")
DUPLICATED_OUTPUT = re.compile(r"\d*>&\d+")  # 2>&1: a redirection, not a background job
# Shell words followed by a command: `if CMD`, `! CMD`, `{ CMD; }`, `then CMD` ...
PREFIX_WORDS = frozenset({"!", "{", "if", "elif", "while", "until", "then", "do", "else"})
SHELLS = frozenset({"sh", "bash", "dash"})
# Options of OpenSSH's ssh that take an argument (ssh(1) SYNOPSIS).
SSH_OPTIONS_WITH_ARGUMENT = frozenset("BbcDEeFIiJLlmOopQRSWw")
# Options of coreutils' timeout that take an argument (as separate word).
TIMEOUT_OPTIONS_WITH_ARGUMENT = frozenset({"-k", "--kill-after", "-s", "--signal"})


def programs_of(command: str) -> set[str]:
    """Names (basenames) of the programs that running ``command`` in a POSIX shell starts."""
    functions = frozenset(FUNCTION.findall(command))
    command = DUPLICATED_OUTPUT.sub(" ", ARRAY_VALUE.sub(r"\1=", ARITHMETIC.sub(":", command)))
    found: set[str] = set()
    for words in simple_commands(command):
        found |= _programs_of_words(words, functions)
    return found


def simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command in ``command`` (split at ``;``, ``&&``, ``|``, newlines, ...)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _programs_of_words(words: list[str], functions: frozenset[str] = frozenset()) -> set[str]:
    while words and ("=" in words[0] and not words[0].startswith("=")):
        words = words[1:]  # VAR=value before the program
    if not words or words[0].startswith("$"):
        return set()  # nothing, or a program named by a variable ("$@" in a function: its callers say which)
    name = PurePosixPath(words[0]).name
    if name in SHELL_WORDS:
        return _programs_of_words(words[1:], functions) if name in PREFIX_WORDS else set()
    rest = words[1:]
    if name in functions:
        return _programs_of_words(rest[rest.index("--") + 1:], functions) if "--" in rest else set()
    if name == "command" and rest[:1] in (["-v"], ["-V"]):
        return set()  # only looks the program up
    if name in ("exec", "command"):
        return _programs_of_words(rest, functions)
    found = {name}
    if name in ("env", "sudo"):
        found |= _programs_of_words(_after_flags(rest), functions)
    elif name == "timeout":
        found |= _programs_of_words(_after_timeout_options(rest), functions)
    elif name in SHELLS and "-c" in rest:
        script = rest[rest.index("-c") + 1 : rest.index("-c") + 2]
        found |= programs_of(script[0]) if script else set()
    elif name == "ssh":
        found |= programs_of(" ".join(_ssh_remote_command(rest)))
    return found


def _after_flags(words: list[str]) -> list[str]:
    """``env -i CMD`` / ``sudo -n CMD`` -> ``CMD`` (options without arguments, as the checks use them)."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 1
    return words[index:]


def _after_timeout_options(words: list[str]) -> list[str]:
    """``timeout [OPTION]... DURATION COMMAND...`` -> ``COMMAND...``."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in TIMEOUT_OPTIONS_WITH_ARGUMENT else 1
    return words[index + 1 :]  # skip DURATION


def _ssh_remote_command(words: list[str]) -> list[str]:
    """``ssh [OPTIONS] DESTINATION [COMMAND...]`` -> ``COMMAND...``."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        takes_argument = len(option) == 2 and option[1] in SSH_OPTIONS_WITH_ARGUMENT
        index += 2 if takes_argument else 1
    return words[index + 1 :]


def recorded_commands(recording: Mapping[str, str]) -> list[str]:
    """Every command of a recording, given as node name -> text of its ``nodes/<node>.yaml``."""
    return [command for node, text in recording.items() for command in parse_node_file(text, node)]


def unlisted_programs(commands: Iterable[str], listed: Iterable[str]) -> set[str]:
    """Programs started by ``commands`` that ``listed`` does not name."""
    started: set[str] = set()
    for command in commands:
        started |= programs_of(command)
    return started - set(listed)
