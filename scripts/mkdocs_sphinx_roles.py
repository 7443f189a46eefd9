"""A griffe extension for the Python reference (reference/python.md, mkdocs.yml): Sphinx roles
in the monapi package's docstrings become cross-references of the page.

The docstrings write `:class:`Token``, `:meth:`Client.iter_service_tasks``, ... for help() and
editors, which show them as they are, and the native module's come from its Rust doc comments
(scripts/gen-stub-docs.py): they stay so. mkdocstrings would show the roles literally, so this
rewrites griffe's copy of each docstring, once the package is loaded and before mkdocstrings
renders it: a role whose target is an object of the page becomes an autorefs link to it, any
other (pyarrow.Table, datetime.date) plain code, so that --strict never fails on it.
"""

from __future__ import annotations

import collections
import functools
import re
from typing import Any

import griffe

# `:class:`Token``, `:py:meth:`~monapi.Client.close``, `:exc:`!Foo``: the prefix `~` shows only
# the last name, `!` asks for no link (Sphinx's meaning of both).
ROLE = re.compile(r":(?:py:)?[a-z]+:`([~!]?)([^`]+)`")
# A name the page leaves out (mkdocs.yml's filter): private, but for the Arrow PyCapsule methods.
PRIVATE_NAME = re.compile(r"^_(?!_arrow_c_)")

Found = griffe.Object | griffe.Alias
NOT_FOUND = (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError)


def shown_paths(pkg: griffe.Module) -> dict[str, str]:
    """The path under which the page shows each object, by the object's own (canonical) path.

    An object defined under a public path is shown there (monapi.errors.ApiError, not
    monapi.ApiError: the page renders the modules errors, tables, testing and types whole). One
    defined in a private module (_native, _token, _answers) is shown under a name the package
    exports: monapi.Client, monapi.testing.Emulator. Breadth first, so that the shortest such
    name wins: monapi.Token, which the page shows, not monapi.types.Token, which it leaves out.
    """
    shown: dict[str, str] = {}
    queue: collections.deque[tuple[str, Found]] = collections.deque([(pkg.path, pkg)])
    while queue:
        path, obj = queue.popleft()
        for name, member in obj.members.items():
            if PRIVATE_NAME.match(name):
                continue
            try:
                target = member.final_target if isinstance(member, griffe.Alias) else member
            except NOT_FOUND:
                continue  # an import from outside the package (datetime.date)
            if target.path in shown:
                continue
            private = any(PRIVATE_NAME.match(part) for part in target.path.split("."))
            shown[target.path] = f"{path}.{name}" if private else target.path
            if target.is_module or target.is_class:
                queue.append((f"{path}.{name}", target))
    return shown


class SphinxRoles(griffe.Extension):
    """Rewrites the Sphinx roles of every docstring of the package (module docstring above)."""

    def __init__(self) -> None:
        super().__init__()
        self.links = 0
        self.codes = 0

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != "monapi":
            return
        shown = shown_paths(pkg)
        # Only the objects themselves: an alias's docstring is its target's, rewritten there.
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            stack.extend(m for m in obj.members.values() if isinstance(m, griffe.Object))
            if obj.docstring is not None:
                obj.docstring.value = ROLE.sub(
                    functools.partial(self.rewrite, obj, shown), obj.docstring.value
                )
        griffe.logger.debug(f"sphinx roles: {self.links} links, {self.codes} plain code")

    def rewrite(self, obj: griffe.Object, shown: dict[str, str], role: re.Match[str]) -> str:
        prefix, target = role.groups()
        text = target.rsplit(".", 1)[-1] if prefix == "~" else target
        path = None if prefix == "!" else self.resolve(obj, target, shown)
        if path is None:
            self.codes += 1
            return f"`{text}`"
        self.links += 1
        return f"[`{text}`][{path}]"

    @staticmethod
    def resolve(obj: griffe.Object, target: str, shown: dict[str, str]) -> str | None:
        """The page's path of `target` as Sphinx resolves it from `obj`'s docstring, or None."""
        # A member of the docstring's class (a method's: its class's), of its module (Sphinx's
        # current module: Emulator in monapi.testing), of the package, then the name as written.
        cls = obj if obj.is_class else obj.parent if obj.parent and obj.parent.is_class else None
        scopes: list[griffe.Object | griffe.ModulesCollection] = [
            s for s in (cls, obj.module, obj.package) if s is not None
        ]
        scopes.append(obj.modules_collection)
        for scope in scopes:
            try:
                found = scope[target]
                final = found.final_target if isinstance(found, griffe.Alias) else found
            except NOT_FOUND:
                continue
            return shown.get(final.path)  # the first found, as in Sphinx, even if not shown
        return None
