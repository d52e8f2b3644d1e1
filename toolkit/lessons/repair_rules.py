"""Trying a repair rule of your own on top of the toolkit's (notebook 08; pack §2.8 "Bad
arguments").

``repair_with`` runs :func:`toolkit.schema.repair_args` first, then the rule on each argument,
so a student sees what their rule adds to the careful fixes the toolkit already makes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..schema import repair_args

__all__ = ["repair_with"]


def repair_with(rule: Callable, args: Any, input_schema: dict) -> tuple[Any, list[str]]:
    """The toolkit's :func:`~toolkit.schema.repair_args`, then ``rule`` on each argument's
    value against its property's schema. Returns ``(new_args, notes)``.

    Notebook 08.
    """
    fixed, notes = repair_args(args, input_schema)
    if not isinstance(fixed, dict):
        return fixed, notes
    props = (input_schema or {}).get("properties") or {}
    fixed = dict(fixed)
    for key, value in list(fixed.items()):
        new, note = rule(value, copy.deepcopy(props.get(key, {})))
        if note:
            fixed[key] = new
            notes.append(f"{key}: {note}")
    return fixed, notes
