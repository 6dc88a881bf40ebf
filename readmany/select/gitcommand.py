"""How readmany runs git: one argv and one environment for every call.

A repository's configuration (`.git/config`, what it includes, `.git/info/attributes`) is
written by whoever made the repository: one unpacked from an archive or on a shared drive
can name a program in it, and git would run that program for readmany. So every call
turns off every program git could run for the commands readmany uses:

- `core.fsmonitor` (a hook run each time the index is read), `core.hooksPath` (pointed at
  `/dev/null`: the hooks git runs when it writes an index, such as `post-index-change`),
  the pager (`--no-pager`), `diff.external` and `GIT_EXTERNAL_DIFF`, the editors,
  `core.askPass`, `credential.helper`, `core.sshCommand`, `gpg.*.program` with
  `log.showSignature`, `core.alternateRefsCommand`; and every transport
  (`GIT_ALLOW_PROTOCOL` names none, which overrides `protocol.*.allow`), so a partial
  clone's missing object is never fetched by a remote helper or ssh;
- the filter drivers: `filter.<name>.clean`, `smudge` and `process`, which git runs on a
  work-tree file it hashes when `.gitattributes` names the driver. Their names are the
  repository's own, so they are read first (`git config --list`, which runs nothing) and
  each one is emptied, `required` false, for every later call (in the environment, as
  `GIT_CONFIG_COUNT` entries: no command line grows with them);
- textconv drivers and `diff.<name>.command`: every `diff` is given `--no-textconv` and
  `--no-ext-diff` (`DIFF_PROGRAMS_OFF`).

Also: `core.untrackedCache` and `core.splitIndex` off and `GIT_OPTIONAL_LOCKS=0` (a listing
never writes the index or a shared index file), `GIT_ALTERNATE_OBJECT_DIRECTORIES` dropped
(no other repository's objects are read as this one's), `GIT_NO_REPLACE_OBJECTS` (the repository's
`refs/replace` cannot make an object read as another), no terminal prompt, and the global
pathspec switches removed (paths handed to git are always literal). The rest of the
environment is the caller's, so that `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` keep
pointing where git pointed them (a pre-commit hook run by `git commit -a` reads the
temporary index about to be committed). The system's configuration is read as git reads
it: it is the administrator's, and may hold the `safe.directory` a shared checkout needs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

# `-c` options on every command line: they take precedence over every configuration file.
SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    f"core.hooksPath={os.devnull}",
    "core.askPass=",
    "core.sshCommand=",
    "core.editor=",
    "core.alternateRefsCommand=",
    "sequence.editor=",
    "credential.helper=",
    "diff.external=",
    "gpg.program=",
    "gpg.openpgp.program=",
    "gpg.x509.program=",
    "gpg.ssh.program=",
    "log.showSignature=false",
    "submodule.recurse=false",
    "protocol.allow=never",
    "maintenance.auto=false",
    "gc.auto=0",
)

# Given to every `diff`: no textconv, no external diff (`diff.<name>.command` included).
DIFF_PROGRAMS_OFF = ("--no-ext-diff", "--no-textconv")

# Said by the caller's environment to name a program, or to change what git would run.
_DROPPED_ENVIRONMENT = (
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    # Objects of other repositories, read as this one's (`git.py` refuses the file form).
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    # They cannot be combined with the literal pathspecs readmany passes.
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
)

_FILTER_KEYS = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))


def git_argv(args: Sequence[str]) -> list[str]:
    """The command line of `git ARGS`, every program of the configuration turned off."""
    argv = ["git", "--no-pager", "--literal-pathspecs"]
    for setting in SAFE_CONFIG:
        argv += ("-c", setting)
    return [*argv, *args]


def base_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The caller's environment, with what `git_argv` cannot say on a command line."""
    env = dict(os.environ)
    for name in _DROPPED_ENVIRONMENT:
        env.pop(name, None)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    env["GIT_NO_LAZY_FETCH"] = "1"
    env["GIT_PROTOCOL_FROM_USER"] = "0"
    env["GIT_ALLOW_PROTOCOL"] = "none"  # no transport is allowed, whatever protocol.*.allow says
    if extra:
        env.update(extra)
    return env


def environment(root: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base_environment` with every filter driver the configuration at `root` names
    emptied, as `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` after the caller's own."""
    env = base_environment(extra)
    drivers = filter_drivers(root, env)
    if not drivers:
        return env
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0  # git refuses it anyway, and says why
    for driver in drivers:
        for key, value in _FILTER_KEYS:
            env[f"GIT_CONFIG_KEY_{count}"] = f"filter.{driver}.{key}"
            env[f"GIT_CONFIG_VALUE_{count}"] = value
            count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def filter_drivers(root: str, env: Mapping[str, str]) -> tuple[str, ...]:
    """The names of the filter drivers configured for the repository at `root` (and in
    the global and system files), read with `git config --list`. Never kept from one call
    of `environment` to the next: a long-running process would miss a driver added since."""
    import subprocess

    try:
        done = subprocess.run(
            git_argv(["config", "-z", "--list"]),
            cwd=root,
            env=dict(env),
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return ()  # no git, or no such directory: the call itself will say so
    names: dict[str, None] = {}
    for entry in done.stdout.split(b"\0"):
        key = os.fsdecode(entry.partition(b"\n")[0])
        section, _, rest = key.partition(".")
        subsection, dot, _ = rest.rpartition(".")
        if section.lower() == "filter" and dot and subsection:
            names[subsection] = None
    return tuple(names)
