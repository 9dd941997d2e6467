# SPDX-License-Identifier: GPL-3.0-or-later
"""New rows of a table model built the short way, for the paths that make many of them.

``Model(**values)`` on a SQLModel table model sets every field through ``SQLModel.__setattr__``
(SQLAlchemy's instrumentation, then pydantic's own ``__setattr__``) after working out every
default: about 90 us a row. A letter makes five rows (three links of its game's chain, its
orders, its confirmation) and a deadline many more, so that was the largest single part of
handling a letter. :func:`new_row` does what that constructor does for a table model without
validators, relationships or private attributes (the ones it is used for): each field set once
where SQLAlchemy reads a pending row's values for its insert, the defaults the same,
pydantic's bookkeeping the same. ``tests/store/test_rows.py`` holds it to the constructor.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlmodel import SQLModel

Row = TypeVar("Row", bound=SQLModel)


def new_row(model: type[Row], **values: Any) -> Row:
    """The row ``model(**values)`` builds, the same in every field, pending its insert."""
    fields = _fields(model)
    unknown = values.keys() - fields.keys()
    if unknown:
        raise TypeError(f"{model.__name__} has no field {', '.join(sorted(unknown))}")
    row: Row = sa.inspect(model).class_manager.new_instance()
    # A pending row is inserted with what its __dict__ holds (SQLAlchemy reads no attribute
    # history for an INSERT), so the fields go there directly; in the constructor's order
    # (it shows in repr): the given fields, then the defaults.
    kept = row.__dict__
    for name in fields:
        if name in values:
            kept[name] = values[name]
    for name, default in fields.items():
        if default is not None and name not in values:
            kept[name] = default()
    object.__setattr__(row, "__pydantic_fields_set__", set(values))
    object.__setattr__(row, "__pydantic_extra__", None)
    object.__setattr__(row, "__pydantic_private__", None)
    return row


@cache
def _fields(model: type[SQLModel]) -> dict[str, Callable[[], Any] | None]:
    """Each field's default maker (None: required), for a model this module can build."""
    if getattr(model, "__table__", None) is None or model.__pydantic_post_init__:
        raise TypeError(f"{model.__name__}: only plain table models are built by new_row")
    if model.__sqlmodel_relationships__ or model.model_config.get("extra") == "allow":
        raise TypeError(f"{model.__name__}: relationships and extra fields need the constructor")
    makers: dict[str, Callable[[], Any] | None] = {}
    for name, field in model.model_fields.items():
        if field.alias and field.alias != name:
            raise TypeError(f"{model.__name__}.{name}: aliased fields need the constructor")
        makers[name] = None if field.is_required() else _default(field)
    return makers


def _default(field: Any) -> Callable[[], Any]:
    """What ``field.get_default(call_default_factory=True)`` gives, worked out once where it can be:
    a factory is called for each row; an immutable default is the same object for every row (as
    pydantic hands it out: its deep copy of an immutable value is the value)."""
    if field.default_factory is None and isinstance(field.default, _IMMUTABLE):
        constant = field.default
        return lambda: constant
    if field.default_factory is not None and not field.default_factory_takes_validated_data:
        factory: Callable[[], Any] = field.default_factory
        return factory

    def make() -> Any:
        return field.get_default(call_default_factory=True)

    return make


_IMMUTABLE = (type(None), bool, int, float, str, bytes, Enum)
