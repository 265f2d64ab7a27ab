#!/usr/bin/env python3
"""Checks the shape of each workspace crate from its own imports (`make test` runs it; it
needs no build and only Python 3's standard library).

For every crate of the workspace it reads the files under src/, resolves each path a file
names (`use crate::...`, `use super::...`, `self::...`, a child module's name, and `crate::`
or `super::` paths inside code) to the file that defines the name, and builds the graph of
files. It fails (exit 1), naming every offence as a chain of files, on:

- an import cycle between two or more files of one crate: a cycle means neither file can be
  read, changed or tested without the other, and rooms stop meaning anything;
- an import from a crate's low room into a feature: the low room holds what every feature
  shares, so it must stand below all of them (LOW_ROOMS says which folder that is).

A `pub use` in a module file is followed to the file that defines the name, so a module that
only hands names on ties nobody into a cycle; and a module's own submodules are its inside
(lib.rs or a mod.rs naming its children draws no arrow; a child importing from its parent
does). There is no list of cycles let pass: the workspace has none, and a new one fails.

`scripts/check-imports.py --graph CRATE_DIR` prints one crate's file graph instead.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Each crate's low room: the folders (or files) of shared types below every feature of the
# crate, which import no feature. A feature is any other top-level folder of the crate's
# src/. Add a row when a crate gets one.
LOW_ROOMS: dict[str, list[str]] = {
    # Who may see what, and how every list pages: every feature's routes use them.
    "services/reconciliation": ["tenancy.rs", "lists.rs", "fields.rs"],
    # The payment record and its statuses, the card, the method and the request.
    "services/payments": ["shared"],
    # The sign-in and token throttles, an address as organisations and accounts take it,
    # and the organisation and account rows both of those features read.
    "services/identity": ["throttles", "address.rs", "directory.rs"],
}

ITEM_KEYWORDS = (
    "fn",
    "struct",
    "enum",
    "trait",
    "type",
    "const",
    "static",
    "union",
    "mod",
)
ITEM_RE = re.compile(
    r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:async\s+)?"
    r"(?:const\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?"
    r"(fn|struct|enum|trait|type|const|static|union|mod)\s+(r#)?([A-Za-z_][A-Za-z0-9_]*)"
)
MACRO_RE = re.compile(r"^\s*macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)")
MOD_DECL_RE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*(;|\{)"
)
USE_START_RE = re.compile(r"(?:^|[;{}\s])(?:pub(?:\([^)]*\))?\s+)?use\s+")
PATH_RE = re.compile(r"(?<![\w$:])((?:crate|super|self)(?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")
CHILD_PATH_RE = re.compile(r"(?<![\w$:.])([a-z_][a-z0-9_]*)\s*::\s*([A-Za-z_][A-Za-z0-9_]*)")


def strip_comments_and_strings(text: str) -> str:
    """Blanks comments, string and char literals (keeping newlines and lengths), so that
    neither a doc comment nor a SQL string is read as code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}') but not a lifetime ('a).
            m = re.match(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


@dataclass
class Module:
    path: tuple[str, ...]
    file: Path
    children: dict[str, tuple[str, ...]] = field(default_factory=dict)
    items: set[str] = field(default_factory=set)
    # name -> (absolute path the name was imported from, as segments)
    uses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    globs: list[tuple[str, ...]] = field(default_factory=list)


@dataclass
class Ref:
    module: tuple[str, ...]  # the module the path was written in
    segments: list[str]
    line: int


class Crate:
    def __init__(self, directory: Path):
        self.directory = directory
        self.src = directory / "src"
        self.modules: dict[tuple[str, ...], Module] = {}
        self.refs: dict[Path, list[Ref]] = {}
        roots = [p for p in (self.src / "lib.rs", self.src / "main.rs") if p.exists()]
        for root in roots:
            # A crate with both lib.rs and main.rs is two crates; main.rs names the library by
            # its crate name, so only its own modules are read here.
            self.read_file(root, (), root.name == "main.rs" and len(roots) == 2)
        bins = self.src / "bin"
        if bins.is_dir():
            for b in sorted(bins.glob("*.rs")):
                self.read_file(b, ("<bin>", b.stem), False)

    def module_file(self, parent_file: Path, parent_is_dir_owner: bool, name: str) -> Path | None:
        base = parent_file.parent if parent_is_dir_owner else parent_file.with_suffix("")
        for candidate in (base / f"{name}.rs", base / name / "mod.rs"):
            if candidate.exists():
                return candidate
        return None

    def read_file(self, file: Path, path: tuple[str, ...], separate_root: bool) -> None:
        if separate_root:
            path = ("<main>",)
        text = strip_comments_and_strings(file.read_text(encoding="utf-8"))
        owns_dir = file.name in ("lib.rs", "main.rs", "mod.rs") or file.parent.name == "bin"
        self.refs.setdefault(file, [])
        self.modules[path] = Module(path, file)
        # Stack of (module path, brace depth at which its body lives).
        stack: list[tuple[tuple[str, ...], int]] = [(path, 0)]
        depth = 0
        pending_mod: str | None = None
        lines = text.split("\n")
        statement = ""
        statement_line = 0
        for lineno, line in enumerate(lines, start=1):
            current = stack[-1][0]
            module = self.modules[current]
            at_module_level = depth == stack[-1][1]
            if at_module_level:
                m = MOD_DECL_RE.match(line)
                if m:
                    name = m.group(1)
                    module.children[name] = current + (name,)
                    module.items.add(name)
                    if m.group(2) == ";":
                        if file.parent.name == "bin" or (current != path):
                            child = None
                        else:
                            child = self.module_file(file, owns_dir, name)
                        if child is not None:
                            self.read_file(child, current + (name,), False)
                    else:
                        pending_mod = name
                else:
                    m = ITEM_RE.match(line)
                    if m:
                        module.items.add(m.group(3))
                    m = MACRO_RE.match(line)
                    if m:
                        module.items.add(m.group(1))
            # Use statements may span lines: gather them up to their semicolon.
            if statement or USE_START_RE.search(line):
                if not statement:
                    statement_line = lineno
                    start = USE_START_RE.search(line)
                    statement = line[start.end():]
                else:
                    statement += " " + line
                if ";" in statement:
                    body = statement.split(";", 1)[0]
                    statement = ""
                    for segments, alias in expand_use(body):
                        self.refs[file].append(Ref(current, segments, statement_line))
                        if depth == stack[-1][1]:
                            if segments[-1] == "*":
                                module.globs.append(self.absolute(current, segments[:-1]) or ())
                            else:
                                absolute = self.absolute(current, segments)
                                if absolute is not None:
                                    module.uses[alias] = absolute
                    # The rest of the line may hold code too; it is read below.
            else:
                for m in PATH_RE.finditer(line):
                    segments = [s.strip() for s in m.group(1).split("::")]
                    self.refs[file].append(Ref(current, segments, lineno))
                for m in CHILD_PATH_RE.finditer(line):
                    head = m.group(1)
                    if head in module.children or head in self.modules[path].uses:
                        self.refs[file].append(Ref(current, [head, m.group(2)], lineno))
            for ch in line:
                if ch == "{":
                    depth += 1
                    if pending_mod is not None:
                        child_path = current + (pending_mod,)
                        self.modules[child_path] = Module(child_path, file)
                        stack.append((child_path, depth))
                        pending_mod = None
                elif ch == "}":
                    if len(stack) > 1 and depth == stack[-1][1]:
                        stack.pop()
                    depth -= 1

    def absolute(self, current: tuple[str, ...], segments: list[str]) -> tuple[str, ...] | None:
        """The path from the crate root that `segments`, written in module `current`, names;
        None for a path into another crate."""
        if not segments:
            return None
        head = segments[0]
        if head == "crate":
            base: tuple[str, ...] = ()
            if current and current[0] in ("<main>", "<bin>"):
                base = current[:1] if current[0] == "<main>" else current[:2]
            return base + tuple(segments[1:])
        if head in ("self", "super"):
            base = current
            rest = list(segments)
            while rest and rest[0] in ("self", "super"):
                if rest.pop(0) == "super":
                    base = base[:-1]
            return base + tuple(rest)
        module = self.modules.get(current)
        if module is not None:
            if head in module.children:
                return current + tuple(segments)
            if head in module.uses and len(segments) > 1:
                return module.uses[head] + tuple(segments[1:])
        return None

    def resolve(self, absolute: tuple[str, ...], seen: frozenset = frozenset()) -> Path | None:
        """The file that defines what `absolute` names, following re-exports."""
        module_path: tuple[str, ...] = ()
        if absolute and absolute[0] in ("<main>", "<bin>"):
            module_path = absolute[:1] if absolute[0] == "<main>" else absolute[:2]
            absolute = absolute[len(module_path):]
        if module_path not in self.modules:
            return None
        rest = list(absolute)
        while rest and rest[0] in self.modules[module_path].children and (module_path + (rest[0],)) in self.modules:
            module_path = module_path + (rest.pop(0),)
        module = self.modules[module_path]
        if not rest or rest[0] == "self":
            return module.file
        name = rest[0]
        key = (module_path, name)
        if name in module.items or key in seen:
            return module.file
        if name in module.uses:
            target = self.resolve(module.uses[name] + tuple(rest[1:]), seen | {key})
            return target or module.file
        for glob in module.globs:
            target = self.resolve(glob + tuple(rest), seen | {key})
            if target is not None and target != self.modules.get(glob, module).file:
                return target
        return module.file

    def owned_module(self, file: Path) -> tuple[str, ...]:
        return min((m.path for m in self.modules.values() if m.file == file), key=len)

    def graph(self) -> dict[Path, dict[Path, list[str]]]:
        edges: dict[Path, dict[Path, list[str]]] = {f: {} for f in self.refs}
        for file, refs in self.refs.items():
            own = self.owned_module(file)
            for ref in refs:
                absolute = self.absolute(ref.module, ref.segments)
                if absolute is None:
                    continue
                if absolute and absolute[-1] == "*":
                    absolute = absolute[:-1]
                target = self.resolve(absolute)
                if target is None or target == file:
                    continue
                # A module's own submodules are its inside: the parent naming them (`mod x;
                # pub use x::Y;`, or calling `x::f`) draws no arrow; a child importing from
                # its parent does.
                inside = self.owned_module(target)
                if len(inside) > len(own) and inside[: len(own)] == own:
                    continue
                names = edges[file].setdefault(target, [])
                label = f"{'::'.join(ref.segments)} (line {ref.line})"
                if label not in names:
                    names.append(label)
        return edges


def expand_use(body: str) -> list[tuple[list[str], str]]:
    """`a::{b, c::{d as e, self}}` -> [(['a','b'],'b'), (['a','c','d'],'e'), (['a','c'],'c')]."""
    body = re.sub(r"\s*(::|\{|\}|,)\s*", r"\1", " ".join(body.split()))
    results: list[tuple[list[str], str]] = []

    def walk(prefix: list[str], text: str) -> None:
        parts, depth, start = [], 0, 0
        for i, ch in enumerate(text):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:])
        for part in parts:
            part = part.strip()
            if not part:
                continue
            if "{" in part:
                head, inner = part.split("{", 1)
                inner = inner[: inner.rfind("}")]
                walk(prefix + [s for s in head.split("::") if s], inner)
                continue
            alias = None
            if " as " in part:
                part, alias = (s.strip() for s in part.rsplit(" as ", 1))
            segments = prefix + [s for s in part.split("::") if s]
            if segments and segments[-1] == "self":
                segments = segments[:-1]
            if not segments:
                continue
            results.append((segments, alias or segments[-1]))

    walk([], body)
    return results


def find_cycles(edges: dict[Path, dict[Path, list[str]]]) -> list[list[Path]]:
    """Strongly connected components of two files or more (Tarjan), each as a list of files."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    on_stack: set[Path] = set()
    stack: list[Path] = []
    components: list[list[Path]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def connect(v: Path) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return components


def chain(component: list[Path], edges: dict[Path, dict[Path, list[str]]]) -> list[Path]:
    """One closed walk through the cycle's files, starting and ending at the first, so that
    the printed chain is a loop a reader can follow."""
    members = set(component)
    start = component[0]
    # Breadth-first from each successor of start back to start, inside the component.
    best: list[Path] | None = None
    for first in sorted(w for w in edges[start] if w in members):
        previous = {first: start}
        queue = [first]
        while queue:
            v = queue.pop(0)
            if v == start:
                break
            for w in sorted(edges[v]):
                if w in members and w not in previous:
                    previous[w] = v
                    queue.append(w)
        if start in previous and start != first:
            path = [start]
            v = previous[start]
            while v != start:
                path.append(v)
                v = previous[v]
            path.append(start)
            path = [start] + list(reversed(path[1:-1])) + [start]
            if best is None or len(path) > len(best):
                best = path
        elif start in edges[first]:
            path = [start, first, start]
            if best is None or len(path) > len(best):
                best = path
    return best or component


def workspace_crates() -> list[Path]:
    manifest = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    crates = []
    for member in manifest["workspace"]["members"]:
        for directory in sorted(ROOT.glob(member)):
            if (directory / "src").is_dir():
                crates.append(directory)
    return crates


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def check() -> int:
    failures: list[str] = []
    for directory in workspace_crates():
        crate = Crate(directory)
        edges = crate.graph()
        for component in find_cycles(edges):
            loop = chain(component, edges)
            lines = [f"import cycle in {rel(directory)} ({len(component)} files):"]
            for a, b in zip(loop, loop[1:]):
                lines.append(f"  {rel(a)} -> {rel(b)}: {', '.join(edges[a][b][:3])}")
            if len(component) > len(loop) - 1:
                rest = sorted(set(component) - set(loop))
                lines.append("  also in this cycle: " + ", ".join(rel(f) for f in rest))
            failures.append("\n".join(lines))
        for low in LOW_ROOMS.get(rel(directory), []):
            low_path = crate.src / low
            features = {
                p for p in crate.src.iterdir() if p.is_dir() and p != low_path and p.name not in ("bin",)
            }
            for file, targets in edges.items():
                if file != low_path and low_path not in file.parents:
                    continue
                for target, names in targets.items():
                    hit = next((f for f in features if f in target.parents), None)
                    if hit is not None:
                        failures.append(
                            f"low room {rel(low_path)} imports feature {rel(hit)}:\n"
                            f"  {rel(file)} -> {rel(target)}: {', '.join(names[:3])}"
                        )
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"check-imports: {len(failures)} problem(s)", file=sys.stderr)
        return 1
    print("check-imports: no import cycles, low rooms import no feature")
    return 0


def print_graph(directory: Path) -> int:
    crate = Crate(directory.resolve())
    for file, targets in sorted(crate.graph().items()):
        for target, names in sorted(targets.items()):
            print(f"{rel(file)} -> {rel(target)}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--graph":
        sys.exit(print_graph(Path(sys.argv[2])))
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check())
