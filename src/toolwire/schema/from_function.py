"""Input schemas from typed Python functions (pydantic) with docstring descriptions
(Google, NumPy and Sphinx styles through ``docstring_parser``)."""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ToolDefinitionError

__all__ = ["describe_function", "FunctionDescription", "strip_titles", "convert_arguments"]


@dataclass
class FunctionDescription:
    """What :func:`describe_function` reads from a typed function: ``description`` (the docstring's
    short and long description, a blank line between), ``input_schema`` (the JSON Schema object of
    the parameters), ``returns`` (the docstring's returns text, or ``None``) and
    ``arguments_model`` (the pydantic model that converts JSON arguments to the annotated types)."""

    description: str
    input_schema: dict[str, Any]
    returns: str | None
    arguments_model: Any = None  # the pydantic model that converts JSON arguments to the annotated types


def strip_titles(schema: Any) -> Any:
    """Remove pydantic's generated ``title`` keys (noise the model pays tokens for), keeping a
    property that is itself *named* ``title``."""
    if isinstance(schema, dict):
        out = {}
        for k, v in schema.items():
            if k == "title" and isinstance(v, str):
                continue
            if k in ("properties", "$defs", "definitions", "patternProperties") and isinstance(v, dict):
                out[k] = {name: strip_titles(sub) for name, sub in v.items()}
            else:
                out[k] = strip_titles(v)
        return out
    if isinstance(schema, list):
        return [strip_titles(v) for v in schema]
    return schema


_SKIP_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _is_context(annotation: Any) -> bool:
    from ..context import ToolContext

    if annotation is ToolContext:
        return True
    args = typing.get_args(annotation)
    return any(a is ToolContext for a in args)


def _signature_hints(function: Callable[..., Any], sig: inspect.Signature, hints: dict[str, Any]) -> dict[str, Any]:
    """``hints`` (from ``typing.get_type_hints``, i.e. ``__annotations__``) completed with the
    annotations of ``sig`` (``inspect.signature``, which follows ``__signature__``): a wrapper
    whose ``__signature__`` carries the annotations has no ``__annotations__`` of its own.
    String annotations are resolved in the unwrapped function's module globals."""
    merged = dict(hints)
    for pname, param in sig.parameters.items():
        if pname in merged or param.annotation is inspect.Parameter.empty:
            continue
        annotation = param.annotation
        if isinstance(annotation, str):
            namespace = getattr(inspect.unwrap(function), "__globals__", {})
            try:
                annotation = eval(annotation, dict(namespace))  # the function's own annotation text
            except Exception as exc:
                raise ToolDefinitionError(
                    f"tool {getattr(function, '__name__', repr(function))!r}: cannot resolve the type hint "
                    f"{param.annotation!r} of parameter {pname!r} from its signature: {exc}"
                ) from None
        merged[pname] = annotation
    return merged


def context_parameters(function: Callable[..., Any]) -> list[str]:
    """Names of ``function``'s parameters annotated :class:`~toolwire.context.ToolContext`
    (in ``__annotations__`` or in the signature ``inspect.signature`` returns)."""
    try:
        hints = typing.get_type_hints(function)
        hints = _signature_hints(function, inspect.signature(function), hints)
    except Exception:
        return []
    return [n for n, a in hints.items() if n != "return" and _is_context(a)]


def describe_function(function: Callable[..., Any]) -> FunctionDescription:
    """Build ``(description, input_schema, returns)`` for ``function``.

    Every parameter needs a type hint, read from ``__annotations__`` (``typing.get_type_hints``)
    and else from the signature ``inspect.signature`` returns (which follows ``__signature__``);
    ``ToolDefinitionError`` names the parameter that has neither;
    ``*args``/``**kwargs`` are not allowed (the model could not know what to send). Defaults are
    kept in the schema; parameters without one are ``required``. Nested pydantic models and
    dataclasses go to ``$defs``.
    """
    import docstring_parser
    import pydantic
    from pydantic.fields import FieldInfo

    name = getattr(function, "__name__", repr(function))
    sig = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # unresolvable forward reference
        raise ToolDefinitionError(f"tool {name!r}: cannot resolve type hints: {exc}") from None
    hints = _signature_hints(function, sig, hints)
    doc = docstring_parser.parse(inspect.getdoc(function) or "")
    param_docs = {p.arg_name: (p.description or "").strip() for p in doc.params}

    fields: dict[str, Any] = {}
    field_defaults: list[str] = []  # parameters whose default is a pydantic Field(...)
    for pname, param in sig.parameters.items():
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"tool {name!r}: parameter {pname!r} is positional-only; tools are called with keyword arguments, "
                "so remove the '/' from the signature"
            )
        if param.kind in _SKIP_KINDS:
            raise ToolDefinitionError(
                f"tool {name!r}: parameter {'*' if param.kind is param.VAR_POSITIONAL else '**'}{pname} is not allowed; "
                "declare each argument the model may send as a named, typed parameter"
            )
        if pname not in hints:
            raise ToolDefinitionError(
                f"tool {name!r}: parameter {pname!r} has no type hint (neither the function's __annotations__ nor "
                "its signature, inspect.signature(), which follows __signature__, carry one); add one so the "
                "input schema can say what to send"
            )
        annotation = hints[pname]
        if _is_context(annotation):
            continue  # injected by the loop, never shown to the model
        if pname == "model_config":
            raise ToolDefinitionError(
                f"tool {name!r}: parameter 'model_config' cannot be used: pydantic, which validates the arguments, "
                "reserves that name for a model's settings; rename the parameter (e.g. 'config')"
            )
        description = param_docs.get(pname) or None
        default = ... if param.default is inspect.Parameter.empty else param.default
        if isinstance(default, FieldInfo):
            # ``x: int = Field(3, description=...)``: the field itself (its default, description and
            # constraints); the function would get the FieldInfo object, so the loop passes its default
            import copy as _copy

            field = _copy.copy(default)
            if field.description is None and description:
                field.description = description
            fields[pname] = (annotation, field)
            field_defaults.append(pname)
            continue
        # (no description given: none passed, so an Annotated Field's own description stays)
        fields[pname] = (
            annotation,
            pydantic.Field(default, description=description) if description else pydantic.Field(default),
        )

    try:
        model = pydantic.create_model(f"{name}_arguments", **fields)  # type: ignore[call-overload]
        schema = model.model_json_schema()
    except Exception as exc:
        raise ToolDefinitionError(f"tool {name!r}: cannot build an input schema from the type hints: {exc}") from None
    if field_defaults:
        model.__toolwire_field_defaults__ = tuple(field_defaults)  # type: ignore[attr-defined]
    for pname, info in model.model_fields.items():
        if info.alias not in (None, pname) or info.validation_alias not in (None, pname):
            raise ToolDefinitionError(
                f"tool {name!r}: parameter {pname!r} has an alias; the model sends the names the schema shows and the "
                "function receives them as keyword arguments, so name the parameter as the model should see it"
            )
    from .validate import check_schema_bounds

    check_schema_bounds(schema, tool_name=name)  # SchemaBoundExceeded before any recursive rewrite
    schema = strip_titles(schema)
    schema.setdefault("properties", {})
    _drop_implied_nulls(schema)
    schema["type"] = "object"
    # key order: type, properties, required, then the rest ($defs last)
    ordered: dict[str, Any] = {"type": "object", "properties": schema.pop("properties")}
    if "required" in schema:
        ordered["required"] = schema.pop("required")
    schema.pop("type", None)
    defs = schema.pop("$defs", None)
    ordered.update(schema)
    if defs:
        ordered["$defs"] = defs

    parts = [p for p in (doc.short_description, doc.long_description) if p]
    description = "\n\n".join(parts).strip()
    returns = doc.returns.description.strip() if doc.returns and doc.returns.description else None
    return FunctionDescription(description, ordered, returns, model)


def _drop_implied_nulls(schema: dict[str, Any]) -> None:
    """``x: T | None = None`` → the property's schema is ``T``'s, not required, without
    ``"default": null``: pydantic writes ``{"anyOf": [T, {"type": "null"}], "default": null}``, which
    tells the model nothing an optional property does not (leaving it out gives the function its
    ``None``; a ``null`` the model sends anyway is dropped before the call, see
    :func:`toolwire.schema.strict.restore_defaults`) and costs tokens on every request. Only for
    a simple ``T`` (a ``type``, no ``$ref``) of a top-level optional property."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return
    required = set(schema.get("required") or ())
    for name, prop in list(props.items()):
        if name in required or not isinstance(prop, dict) or "default" not in prop or prop["default"] is not None:
            continue
        branches = prop.get("anyOf")
        if not isinstance(branches, list) or len(branches) != 2 or {"type": "null"} not in branches:
            continue
        other = branches[0] if branches[1] == {"type": "null"} else branches[1]
        if not isinstance(other, dict) or "type" not in other or "$ref" in other or other.get("type") == "null":
            continue
        rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
        if set(rest) & set(other):
            continue
        props[name] = {**other, **rest}


def convert_arguments(arguments_model: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    """Turn JSON arguments (already valid for the input schema) into the function's annotated
    Python types through the tool's pydantic model: a nested model's object becomes that model,
    ``"2026-01-01"`` a ``datetime.date``, an enum value the ``Enum`` member. Only the arguments
    the model sent are returned (the function's own defaults apply to the rest).

    Raises :class:`pydantic.ValidationError` when pydantic refuses a value the JSON Schema allowed.
    """
    filled = getattr(arguments_model, "__toolwire_field_defaults__", None)
    if filled is not None:
        out = _convert(arguments_model, arguments)
        for name in filled:  # a parameter whose default is Field(...): its field's default, not the FieldInfo
            if name not in out:
                info = arguments_model.model_fields[name]
                if not info.is_required():
                    out[name] = info.get_default(call_default_factory=True)
        return out
    return _convert(arguments_model, arguments)


def _convert(arguments_model: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    plain = _plain_fields(arguments_model)
    if plain is not None and all(type(v) is plain.get(k) for k, v in arguments.items()):
        # every value already has its field's type (str, int, float, bool without constraints
        # or validators): pydantic would return the same values
        return dict(arguments)
    import json

    try:
        text = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        validated = arguments_model.model_validate(arguments)
    else:
        # JSON mode: strict types (ConfigDict(strict=True), Strict()) accept their JSON forms
        validated = arguments_model.model_validate_json(text)
    return {name: getattr(validated, name) for name in arguments if name in arguments_model.model_fields}


_PLAIN_TYPES = (str, int, float, bool)
_PLAIN: dict[int, tuple[Any, dict[str, type] | None]] = {}


def _plain_fields(arguments_model: Any) -> dict[str, type] | None:
    """``{field name: type}`` of the fields of ``arguments_model`` whose annotation is exactly
    ``str``, ``int``, ``float`` or ``bool`` with no constraint or validator: a JSON value of
    exactly that type converts to itself. ``None`` when the model has validators or settings
    that could change any value. Read once per model (held, so its id is not reused)."""
    hit = _PLAIN.get(id(arguments_model))
    if hit is not None and hit[0] is arguments_model:
        return hit[1]
    plain: dict[str, type] | None = {}
    try:
        decorators = arguments_model.__pydantic_decorators__
        if (
            dict(arguments_model.model_config)
            or decorators.validators
            or decorators.field_validators
            or decorators.root_validators
            or decorators.model_validators
        ):
            plain = None
        else:
            for name, f in arguments_model.model_fields.items():
                if f.annotation in _PLAIN_TYPES and not f.metadata and f.alias in (None, name):
                    plain[name] = f.annotation  # type: ignore[index]
    except Exception:  # not a pydantic model as toolwire builds them: always convert
        plain = None
    if len(_PLAIN) >= 1024:
        _PLAIN.clear()
    _PLAIN[id(arguments_model)] = (arguments_model, plain)
    return plain
