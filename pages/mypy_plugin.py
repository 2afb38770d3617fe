"""A mypy plugin (loaded by mypy from pyproject's `[tool.mypy] plugins`, never imported by the site): a
`TypedDict`'s `.get("key")` with a key the type does not declare is an error, as `row["key"]` already is.

The pages read board rows (`scoring.types`) mostly through `row.get(...)`; mypy alone types a `.get` of an
undeclared key as `object` without a word, so a renamed key would still be a blank cell. With this plugin it is
a type error (`typeddict-item`), and the call is then typed by mypy's own rule."""

from __future__ import annotations

from collections.abc import Callable

from mypy.errorcodes import TYPEDDICT_ITEM
from mypy.plugin import MethodContext, Plugin
from mypy.plugins.default import typed_dict_get_callback
from mypy.typeops import try_getting_str_literals
from mypy.types import Type, TypedDictType, get_proper_type


def _checked_get(ctx: MethodContext) -> Type:
    typed = get_proper_type(ctx.type)
    if isinstance(typed, TypedDictType) and ctx.args and len(ctx.args[0]) == 1:
        keys = try_getting_str_literals(ctx.args[0][0], ctx.arg_types[0][0]) or []
        name = typed.fallback.type.name
        for key in keys:
            if key not in typed.items:
                ctx.api.fail(f'TypedDict "{name}" has no key "{key}"', ctx.context, code=TYPEDDICT_ITEM)
    return typed_dict_get_callback(ctx)


class TypedDictGetPlugin(Plugin):
    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return _checked_get if fullname == "typing.Mapping.get" else None


def plugin(version: str) -> type[Plugin]:
    return TypedDictGetPlugin
