"""A fake home and project holding realistic config files of every host, for workspace tests.

``build_fake_home(root)`` makes ``root/home`` (our user file, Claude Code's ``~/.claude.json``
with several projects, Claude Desktop, Cursor, Gemini CLI, VS Code and Codex user files) and
``root/project`` (a git repository root with ``.mcp.json``, ``.cursor/``, ``.vscode/`` and
``.codex/`` files, and ``.gemini/`` in ``cwd``, where Gemini CLI reads it), and returns where
everything is plus a manifest: which servers each file holds and how each is reached. Every
server is runnable: by default ``tests/servers/light_plain_server.py`` under
``sys.executable``, with ``--name`` set to a label unique to the entry, so two entries are the
same connection only where planned.

Planned cases (each can be turned off):
- ``LAYERED`` is in our user file, the project's ``.mcp.json`` and Claude Code's local scope,
  each time with a different connection: for Claude Code the local one wins and the project
  one is shadowed; our own file's is another host's server, ``layered@agentty``;
- ``TWIN`` is the same connection (command, args, env) in two user files of different hosts
  (``twins``): one server with two sources;
- ``REPO_TOOL`` is a stdio server of the project's ``.mcp.json``: it needs trust;
- ``REMOTE_DOCS`` is a URL server in a project file (``url_source``): it needs trust too;
- ``VAULT`` (VS Code project file) needs ``${input:vault-token}``: it loads with a problem;
- ``MUTED`` (Gemini user file) is listed in ``mcp.excluded``: it loads disabled.
Other projects in ``~/.claude.json`` hold servers too (``LAYERED`` among them): none of them
belongs to this project. Everything is deterministic: the same arguments give the same bytes.

Use::

    fake = build_fake_home(tmp_path)                 # every source, one plain server each
    sources = workspace_sources(fake.home, fake.env, fake.project)
    assert fake.winners()[LAYERED].source == "claude-local"
    assert fake.sources_of(TWIN) == ("claude-user", "codex-user")
    before = fake.snapshot()
    ...                                               # an edit of one entry
    changed = {key for key, data in fake.snapshot().items() if data != before[key]}
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tests.fake_home_files import PlannedServer, mcp_servers_json, source_texts
from tests.servers import plain_argv

__all__ = [
    "DEFAULT_URL",
    "LAYERED",
    "MUTED",
    "REMOTE_DOCS",
    "REPO_TOOL",
    "SOURCES",
    "TWIN",
    "VAULT",
    "FakeEntry",
    "FakeHome",
    "Source",
    "build_fake_home",
    "small_fake_home",
]

Scope = Literal["user", "project", "local"]

LAYERED = "layered"
"""The name in the user, project and local scopes, each with its own connection."""
TWIN = "twin"
"""The name with one identical connection in two hosts' user files."""
REPO_TOOL = "repo-tool"
"""A stdio server of the project's ``.mcp.json`` (needs trust)."""
REMOTE_DOCS = "remote-docs"
"""A URL server of a project file (needs trust)."""
VAULT = "vault"
"""The VS Code project server that needs a prompted input (loads with a problem)."""
MUTED = "muted"
"""The Gemini user server listed in ``mcp.excluded`` (loads disabled)."""
DEFAULT_URL = "http://127.0.0.1:9/mcp"
"""Where ``REMOTE_DOCS`` points unless told: the discard port, refused at once."""
OTHER_PROJECTS = ("src/website", "notes")
"""Other projects in ``~/.claude.json``, relative to the fake home."""


@dataclass(frozen=True)
class Source:
    """One kind of file the builder writes."""

    host: str
    """Who reads it: ``agentty``, ``claude``, ``claude-desktop``, ``cursor``, ``gemini``,
    ``vscode`` or ``codex``."""
    scope: Scope
    """``user``, ``project`` or ``local`` (Claude Code's per-project entries)."""
    dialect: str
    """Its format as ``dialect_by_name`` takes it; ``claude-local`` is the project's part of
    ``~/.claude.json`` (``projects[root].mcpServers``, spelled as ``claude``)."""


SOURCES: Mapping[str, Source] = {
    "agentty-user": Source("agentty", "user", "claude"),
    "claude-user": Source("claude", "user", "claude"),
    "claude-local": Source("claude", "local", "claude-local"),
    "claude-desktop": Source("claude-desktop", "user", "claude"),
    "cursor-user": Source("cursor", "user", "claude"),
    "gemini-user": Source("gemini", "user", "gemini"),
    "codex-user": Source("codex", "user", "codex"),
    "vscode-user": Source("vscode", "user", "vscode"),
    "project-mcp": Source("claude", "project", "claude"),
    "cursor-project": Source("cursor", "project", "claude"),
    "gemini-project": Source("gemini", "project", "gemini"),
    "vscode-project": Source("vscode", "project", "vscode"),
    "codex-project": Source("codex", "project", "codex"),
}
"""Every source key, in the order files and manifests list them."""

_RANK: Mapping[Scope, int] = {"local": 0, "project": 1, "user": 2}
_LAYERED_IN = ("agentty-user", "project-mcp", "claude-local")

ServerCommand = Sequence[str] | Callable[[str], Sequence[str]]
"""An argv to which ``--name LABEL`` is appended, or a function of the label giving the argv."""


@dataclass(frozen=True)
class FakeEntry:
    """One server entry the builder wrote, as the file's dialect should load it."""

    source: str
    """The key of its file in ``FakeHome.files`` (and ``SOURCES``)."""
    name: str
    """The server's name in that file."""
    argv: tuple[str, ...] | None = None
    """Command and arguments of a stdio server."""
    url: str | None = None
    """Endpoint of a Streamable HTTP server."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment of a stdio server, as written."""
    disabled: bool = False
    """Whether the file turns it off."""
    problem: bool = False
    """Whether it loads with a problem instead of a spec (it cannot be started)."""

    @property
    def scope(self) -> Scope:
        """The scope of its source."""
        return SOURCES[self.source].scope

    @property
    def connection(self) -> tuple[object, ...]:
        """What makes two entries the same server: command, args, env, or the URL."""
        return (self.argv, self.url, tuple(sorted(self.env.items())))


@dataclass(frozen=True)
class FakeHome:
    """The fake home and project a test works in, and what their files hold."""

    root: Path
    """The folder given to ``build_fake_home``, resolved (Claude Code keys a project by its
    real path)."""
    home: Path
    """``$HOME``."""
    project: Path
    """The project root: holds ``.git/``."""
    cwd: Path
    """A folder inside the project, where a test "runs" agentty-tui."""
    env: dict[str, str]
    """``HOME``, ``XDG_CONFIG_HOME``, ``XDG_STATE_HOME``, ``XDG_RUNTIME_DIR`` (and
    ``CODEX_HOME`` when asked); ``APPDATA`` is never set."""
    files: dict[str, Path]
    """Source key -> the file written for it (``claude-user`` and ``claude-local`` are the same
    ``~/.claude.json``)."""
    entries: tuple[FakeEntry, ...]
    """Every entry written, by source in ``SOURCES`` order, each file's entries in file order."""

    @property
    def servers(self) -> dict[str, tuple[str, ...]]:
        """Source key -> the names its file holds, in file order (the manifest)."""
        return {key: tuple(e.name for e in self.entries if e.source == key) for key in self.files}

    def entry(self, source: str, name: str) -> FakeEntry:
        """The entry ``name`` of ``source`` (``KeyError`` when there is none)."""
        for item in self.entries:
            if item.source == source and item.name == name:
                return item
        raise KeyError((source, name))

    def _runs(self) -> tuple[dict[str, FakeEntry], dict[tuple[str, str], str]]:
        """The workspace's servers as the hosts run them: key -> the entry that runs it, and
        (host, name) -> the key of the server that host runs under that name.

        Each host has its own precedence (local over project over user; between entries of
        one scope, only identical twins are planned there, the first in ``SOURCES`` order),
        and no host hides another's entry: another host's entry of a name is the same server
        only with the same connection, else a server of its own keyed ``name@host``."""
        order = list(SOURCES)
        ranked = sorted(self.entries, key=lambda e: (_RANK[e.scope], order.index(e.source)))
        keys: dict[str, FakeEntry] = {}
        runs: dict[tuple[str, str], str] = {}
        for item in ranked:
            host = SOURCES[item.source].host
            if (host, item.name) in runs:
                continue
            same = [
                key
                for key, held in keys.items()
                if held.name == item.name
                and not held.problem
                and held.connection == item.connection
            ]
            if same:
                runs[host, item.name] = same[0]
                continue
            key = item.name if item.name not in keys else f"{item.name}@{host}"
            keys[key] = item
            runs[host, item.name] = key
        return keys, runs

    def winners(self) -> dict[str, FakeEntry]:
        """Workspace key -> the entry that runs (``_runs``), in precedence order."""
        return self._runs()[0]

    def key_of(self, item: FakeEntry) -> str:
        """The workspace key of the server ``item``'s host runs under its name."""
        return self._runs()[1][SOURCES[item.source].host, item.name]

    def sources_of(self, key: str) -> tuple[str, ...]:
        """The sources that hold the server ``key`` with its connection (more than one:
        de-dup), in ``SOURCES`` order."""
        keys, runs = self._runs()
        winner = keys[key]
        return tuple(
            e.source
            for e in self.entries
            if runs[SOURCES[e.source].host, e.name] == key and e.connection == winner.connection
        )

    def shadowed(self) -> tuple[FakeEntry, ...]:
        """The entries their own host hides behind another connection of the same name."""
        keys, runs = self._runs()
        return tuple(
            e
            for e in self.entries
            if e.connection != keys[runs[SOURCES[e.source].host, e.name]].connection
        )

    def single_file(self, path: Path) -> Path:
        """Write the winners to one ``mcpServers`` file at ``path`` (entries with a problem
        left out): the one-file side of a workspace-against-one-file benchmark."""
        servers = [
            PlannedServer(key, e.argv, e.url, e.env, extra={"disabled": True} if e.disabled else {})
            for key, e in self.winners().items()
            if not e.problem
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(mcp_servers_json(servers))
        return path

    def process_env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: this process's environment) with the fake home's variables, and
        without any the fake home leaves unset: for a subprocess of the CLI."""
        cleared = {"HOME", "CODEX_HOME", "APPDATA", "AGENTTY_CONFIG"}
        kept = {
            k: v
            for k, v in (os.environ if base is None else base).items()
            if k not in cleared and not k.startswith("XDG_")
        }
        return {**kept, **self.env}

    def snapshot(self) -> dict[str, bytes]:
        """Source key -> its file's bytes now (``b""`` once deleted): compare two snapshots to
        see which files an edit touched."""
        return {
            key: path.read_bytes() if path.exists() else b"" for key, path in self.files.items()
        }

    def claude_code_writes(self, prompt: str = "one more prompt", *, atomic: bool = True) -> str:
        """Rewrite ``~/.claude.json`` as Claude Code does after a session: one more start, the
        prompt added to this project's history, every server left as it is; written whole as
        ``JSON.stringify(x, null, 2)``, by a rename (``atomic``) or in place. Returns the text."""
        path = self.files.get("claude-user") or self.files["claude-local"]
        document = json.loads(path.read_text())
        document["numStartups"] += 1
        local = document["projects"][str(self.project)]
        local["history"].insert(0, {"display": prompt, "pastedContents": {}})
        text = json.dumps(document, indent=2, ensure_ascii=False)
        if atomic:
            temporary = path.with_name(f"{path.name}.tmp.{os.getpid()}")
            temporary.write_text(text)
            os.replace(temporary, path)
        else:
            path.write_text(text)
        return text


def _command(server_command: ServerCommand | None) -> Callable[[str], tuple[str, ...]]:
    if server_command is None:
        return lambda label: tuple(plain_argv("--name", label))
    if callable(server_command):
        made = server_command
        return lambda label: tuple(made(label))
    base = tuple(server_command)
    return lambda label: (*base, "--name", label)


def _plan(
    selected: Sequence[str],
    per_source: int,
    command: Callable[[str], tuple[str, ...]],
    *,
    layered: bool,
    twins: Sequence[str],
    untrusted: bool,
    url: str | None,
    url_source: str,
    prompted_input: bool,
    muted: bool,
) -> list[FakeEntry]:
    """Every entry, by source in ``SOURCES`` order."""
    plan: list[FakeEntry] = []
    for key in selected:
        for index in range(1, per_source + 1):
            name = f"{key}-{index}"
            plan.append(FakeEntry(key, name, command(name)))
        if layered and key in _LAYERED_IN:
            plan.append(FakeEntry(key, LAYERED, command(f"{LAYERED}@{SOURCES[key].scope}")))
        if key in twins:
            plan.append(FakeEntry(key, TWIN, command(TWIN), env={"TWIN_MODE": "same"}))
        if untrusted and key == "project-mcp":
            plan.append(FakeEntry(key, REPO_TOOL, command(REPO_TOOL)))
        if url is not None and key == url_source:
            plan.append(FakeEntry(key, REMOTE_DOCS, url=url))
        if prompted_input and key == "vscode-project":
            env = {"VAULT_TOKEN": "${input:vault-token}"}
            plan.append(FakeEntry(key, VAULT, command(VAULT), env=env, problem=True))
        if muted and key == "gemini-user":
            plan.append(FakeEntry(key, MUTED, command(MUTED), disabled=True))
    return plan


def _spelled(entries: Sequence[FakeEntry], source: str) -> list[PlannedServer]:
    """The entries of ``source`` with the comments and host keys its file carries."""
    planned = []
    for number, item in enumerate(e for e in entries if e.source == source):
        extra: dict[str, object] = {}
        comment = None
        filler = item.name.startswith(source + "-")
        if source == "agentty-user" and number == 0:
            extra = {"tools": {"exclude": ["sleep"]}}
        elif source.startswith("gemini") and filler:
            extra = {"timeout": 30000, "trust": False}
        elif source.startswith("codex") and filler:
            extra = {"startup_timeout_sec": 20}
            comment = f"{item.name}: started with every session"
        elif source.startswith("vscode"):
            comment = "asks for a token first" if item.name == VAULT else "the test server"
        planned.append(PlannedServer(item.name, item.argv, item.url, item.env, comment, extra))
    return planned


def _paths(home: Path, project: Path, env: Mapping[str, str], cwd: Path) -> dict[str, Path]:
    config = Path(env["XDG_CONFIG_HOME"])
    codex = Path(env["CODEX_HOME"]) if "CODEX_HOME" in env else home / ".codex"
    return {
        "agentty-user": config / "agentty" / "mcp.json",
        "claude-user": home / ".claude.json",
        "claude-local": home / ".claude.json",
        "claude-desktop": config / "Claude" / "claude_desktop_config.json",
        "cursor-user": home / ".cursor" / "mcp.json",
        "gemini-user": home / ".gemini" / "settings.json",
        "codex-user": codex / "config.toml",
        "vscode-user": config / "Code" / "User" / "mcp.json",
        "project-mcp": project / ".mcp.json",
        "cursor-project": project / ".cursor" / "mcp.json",
        # Gemini CLI reads the settings of the folder it runs in, not the project top's.
        "gemini-project": cwd / ".gemini" / "settings.json",
        "vscode-project": project / ".vscode" / "mcp.json",
        "codex-project": project / ".codex" / "config.toml",
    }


def _texts(fake: FakeHome, command: Callable[[str], tuple[str, ...]]) -> dict[Path, str]:
    """Path -> text of every file to write."""
    spelled = {key: _spelled(fake.entries, key) for key in fake.files}
    website = [
        PlannedServer(LAYERED, command(f"{LAYERED}@website")),
        PlannedServer("website-preview", command("website-preview")),
    ]
    others = {str(fake.home / OTHER_PROJECTS[0]): website, str(fake.home / OTHER_PROJECTS[1]): []}
    texts = source_texts(spelled, project=str(fake.project), others=others, excluded=(MUTED,))
    return {fake.files[key]: text for key, text in texts.items()}


def _git_root(project: Path) -> None:
    """Enough of ``.git`` for a folder to be a repository root (git is not run)."""
    git = project / ".git"
    for folder in ("objects", "refs/heads"):
        (git / folder).mkdir(parents=True, exist_ok=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")


def build_fake_home(
    root: Path,
    *,
    server_command: ServerCommand | None = None,
    servers_per_source: int = 1,
    sources: Sequence[str] | None = None,
    layered: bool = True,
    twins: Sequence[str] = ("claude-user", "codex-user"),
    untrusted: bool = True,
    url: str | None = DEFAULT_URL,
    url_source: str = "project-mcp",
    prompted_input: bool = True,
    muted: bool = True,
    codex_home: bool = False,
) -> FakeHome:
    """Write a fake home and project under ``root`` (an empty folder) and return what is where.

    ``servers_per_source`` plain entries (``<source>-1``, ...) go in every selected source
    (``sources``: keys of ``SOURCES``, default all), then the planned cases of the module's
    docstring: ``layered``, ``twins`` (the sources that hold ``TWIN``; empty for none),
    ``untrusted`` (``REPO_TOOL``), ``url`` (``REMOTE_DOCS`` in ``url_source``; ``None`` for
    none), ``prompted_input`` (``VAULT``) and ``muted`` (``MUTED``), each only where its source
    is selected. ``server_command`` starts every stdio server (see ``ServerCommand``; default
    ``light_plain_server.py``); ``codex_home`` puts Codex's file under ``$CODEX_HOME`` instead.
    """
    selected = list(SOURCES) if sources is None else [k for k in SOURCES if k in sources]
    unknown = sorted({*(sources or ()), *twins, url_source} - set(SOURCES))
    if unknown:
        raise ValueError(f"unknown sources {unknown}; use keys of SOURCES")
    root = root.resolve()
    home, project = root / "home", root / "project"
    cwd = project / "src" / "app"
    cwd.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    _git_root(project)
    runtime = root / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_RUNTIME_DIR": str(runtime),
    }
    if codex_home:
        env["CODEX_HOME"] = str(root / "codex-home")
    command = _command(server_command)
    entries = _plan(
        selected,
        servers_per_source,
        command,
        layered=layered,
        twins=twins,
        untrusted=untrusted,
        url=url,
        url_source=url_source,
        prompted_input=prompted_input,
        muted=muted,
    )
    paths = _paths(home, project, env, cwd)
    fake = FakeHome(
        root=root,
        home=home,
        project=project,
        cwd=cwd,
        env=env,
        files={key: paths[key] for key in selected},
        entries=tuple(entries),
    )
    for path, text in _texts(fake, command).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if any(key.startswith("gemini") for key in selected):
        # The user trusted the project in Gemini CLI (it runs no server in a folder it does not
        # trust), as Codex's file trusts it.
        folders = home / ".gemini" / "trustedFolders.json"
        folders.parent.mkdir(parents=True, exist_ok=True)
        folders.write_text(json.dumps({str(project): "TRUST_FOLDER"}, indent=2))
    return fake


def small_fake_home(
    root: Path, sources: Sequence[str] = ("agentty-user", "project-mcp")
) -> FakeHome:
    """A fake home of a few ``sources`` with one plain server each, and ``REPO_TOOL`` (a
    project server that waits for trust) where ``project-mcp`` is among them; no other
    planned case."""
    return build_fake_home(
        root,
        sources=sources,
        layered=False,
        twins=(),
        url=None,
        prompted_input=False,
        muted=False,
    )
