"""Providers by config: ``"provider:model-id"`` strings, mappings and ``TOOLWIRE_MODEL``,
resolved through the ``toolwire.adapters`` entry-point group."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .adapter import Model, check_setting_types, check_settings
from .errors import AdapterNotInstalled, ConfigurationError, ProviderNotFound

__all__ = [
    "model",
    "codec",
    "profile",
    "cached_profile",
    "installed_profiles",
    "available_providers",
    "parse_model_name",
    "clear_caches",
    "model_for_run",
    "ENTRY_POINT_GROUP",
    "KNOWN_PROVIDERS",
]

ENTRY_POINT_GROUP = "toolwire.adapters"

#: Providers toolwire knows about, with the extra that installs each one's adapter.
KNOWN_PROVIDERS: dict[str, str] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "openai-chat": "openai",
    "gemini": "gemini",
    "test": "",
    "scripted": "",
}

#: Names people write for a provider that toolwire spells differently.
_PROVIDER_ALIASES = {
    "openai-responses": "openai",
    "responses": "openai",
    "chat": "openai-chat",
    "google": "gemini",
    "claude": "anthropic",
}


def _closest_provider(provider: str, known: list[str]) -> str | None:
    import difflib

    low = provider.strip().lower()
    if low in known:
        return low
    if low in _PROVIDER_ALIASES:
        return _PROVIDER_ALIASES[low]
    close = difflib.get_close_matches(low, known, n=1, cutoff=0.6)
    return close[0] if close else None


#: The ``toolwire.adapters`` entry points, read once per ``sys.path``: scanning the installed
#: distributions costs milliseconds, so :func:`model` does not redo it per call. A package
#: installed into a directory already on ``sys.path`` while the process runs is seen after
#: :func:`clear_caches`.
_EP_CACHE: dict[tuple[str, ...], dict[str, Any]] = {}
_LOADED: dict[tuple[str, str], Any] = {}


def _entry_points() -> dict[str, Any]:
    import sys

    key = tuple(sys.path)
    found = _EP_CACHE.get(key)
    if found is None:
        from importlib import metadata

        found = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
        _EP_CACHE.clear()
        _EP_CACHE[key] = found
    return found


def clear_caches() -> None:
    """Forget the entry points, loaded adapters and profiles read so far (e.g. after installing
    an adapter in a running process); the next :func:`model` call scans the installed
    distributions again."""
    _EP_CACHE.clear()
    _LOADED.clear()
    _PROFILES.clear()
    if _RUN_MODELS is not None:
        _RUN_MODELS.clear()


def available_providers() -> list[str]:
    """Names of the providers whose adapters are installed."""
    return sorted(_entry_points())


def _providers_of_model_id(model_id: str) -> list[str]:
    """The installed providers whose profile recognises ``model_id`` as one of its vendor's
    (:meth:`~toolwire.profile.Profile.recognizes_model_id`), in name order (``openai`` before
    ``openai-chat``); empty when none does or none is installed."""
    found = []
    for provider, prof in installed_profiles().items():
        try:
            if prof.recognizes_model_id(model_id):
                found.append(provider)
        except Exception:  # a third-party profile's bug must not hide the error being reported
            continue
    return sorted(found)


def parse_model_name(name: str) -> tuple[str, str]:
    """Split ``"provider:model-id"``; the model id may itself contain ``:``. ``"test"`` alone is
    allowed for the offline providers. Spaces around either part are dropped
    (``"anthropic: claude-sonnet-4-5"`` → ``("anthropic", "claude-sonnet-4-5")``): no vendor's model
    id has any, and the APIs answer an id with them as an unknown model. Raises
    :class:`ConfigurationError` on a malformed name."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigurationError(f"model must be a 'provider:model-id' string, got {name!r}")
    provider, sep, model_id = name.strip().partition(":")
    provider, model_id = provider.strip(), model_id.strip()
    if not sep:
        if provider in ("test", "scripted"):
            return provider, provider
        head, slash, rest = provider.partition("/")
        guess = _closest_provider(head, sorted(KNOWN_PROVIDERS)) if slash and rest else None
        if guess:
            raise ConfigurationError(
                f"model {name!r} has no provider; did you mean {guess + ':' + rest!r}? "
                "toolwire model names are 'provider:model-id'"
            )
        owners = _providers_of_model_id(provider) if provider else []
        if owners:
            named = [repr(f"{p}:{provider}") for p in owners]
            also = f" (or {' or '.join(named[1:])})" if len(named) > 1 else ""
            raise ConfigurationError(
                f"model {name!r} has no provider; did you mean {named[0]}{also}? "
                "toolwire model names are 'provider:model-id'"
            )
        shown = name if len(name) <= 80 else name[:77] + "..."
        raise ConfigurationError(
            f"model {shown!r} has no provider; write it as 'provider:model-id', e.g. 'anthropic:claude-sonnet-4-5' "
            f"(providers: {', '.join(sorted(KNOWN_PROVIDERS))})"
        )
    if not provider or not model_id:
        raise ConfigurationError(f"model {name!r} must be 'provider:model-id' with both parts non-empty")
    return provider, model_id


def model(spec: Any = None, /, **settings: Any) -> Model:
    """Resolve a model from config.

    ``spec`` is one of: a ``"provider:model-id"`` string; a mapping
    ``{"model": "provider:model-id", "settings": {...}}`` (e.g. a TOML table); an existing
    :class:`Model` (returned as is, or a copy with ``settings`` merged); or ``None`` to read the
    ``TOOLWIRE_MODEL`` environment variable. Keyword ``settings`` override mapping settings.

    Raises :class:`ProviderNotFound` (lists the known providers) for an unknown provider,
    :class:`AdapterNotInstalled` (names the extra) for a known one whose adapter is missing, and
    :class:`ConfigurationError` for a malformed spec.
    """
    if isinstance(spec, Model):
        if not settings:
            return spec
        import copy

        check_settings(type(spec), settings, shown=spec.name)
        check_setting_types(settings, shown=spec.name)
        variant = copy.copy(spec)  # a variant: the caller's model keeps its settings
        variant.settings = {**spec.settings, **settings}
        from .secrets import register_settings

        register_settings(variant.settings)
        return variant
    if spec is None:
        spec = os.environ.get("TOOLWIRE_MODEL")
        if not spec:
            raise ConfigurationError("no model given and TOOLWIRE_MODEL is not set; pass 'provider:model-id'")
    if isinstance(spec, Mapping):
        if "model" not in spec:
            raise ConfigurationError(
                f"model mapping needs a 'model' key ('provider:model-id'), got keys {sorted(spec)}"
            )
        extra = set(spec) - {"model", "settings"}
        if extra:
            raise ConfigurationError(f"model mapping has unknown keys {sorted(extra)}; allowed: 'model', 'settings'")
        given = spec.get("settings")
        if given is not None and not isinstance(given, Mapping):
            raise ConfigurationError(
                f"model mapping 'settings' must be a table of setting names to values, got {type(given).__name__}"
            )
        merged = dict(given or {})
        merged.update(settings)
        return model(spec["model"], **merged)
    provider, model_id = parse_model_name(spec)
    factory = _factory(provider, shown=spec)
    from .secrets import register_settings

    register_settings(settings)  # before the adapter takes its transport settings out
    return factory(model_id, **settings)


#: ``{event loop: {spec key: (environment copy, Model)}}``: models a run resolved from a string.
_RUN_MODELS: Any = None


def model_for_run(spec: Any) -> Model:
    """The model a run uses for ``spec`` (what :func:`toolwire.run` was given as ``model``).

    A :class:`Model` is used as is. A ``"provider:model-id"`` string, or a mapping whose
    settings are plain JSON values, is resolved by :func:`model` once per event loop and reused
    by the later runs on that loop (the vendor SDK client too, with its connection pool) while
    the process environment (where the SDKs read API keys and base URLs) is unchanged; anything
    else, or a call outside a running loop, resolves a new model each time."""
    if isinstance(spec, Model):
        return spec
    key = _spec_key(spec)
    if key is None:
        return model(spec)
    import asyncio
    import weakref

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return model(spec)
    global _RUN_MODELS
    if _RUN_MODELS is None:
        _RUN_MODELS = weakref.WeakKeyDictionary()
    per_loop = _RUN_MODELS.get(loop)
    if per_loop is None:
        per_loop = _RUN_MODELS[loop] = {}
    env = getattr(os.environ, "_data", None)
    hit = per_loop.get(key)
    if hit is not None and env is not None and hit[0] == env:
        return hit[1]  # type: ignore[no-any-return]
    m = model(spec)
    if env is not None:
        if len(per_loop) >= 64:
            per_loop.clear()
        per_loop[key] = (dict(env), m)
    return m


#: Providers whose models keep per-run state (a script position, the requests seen): never reused.
_NOT_REUSED = frozenset({"test", "scripted"})


def _spec_key(spec: Any) -> Any:
    import json

    if spec is None:
        spec = os.environ.get("TOOLWIRE_MODEL")
        if not spec:
            return None
    if isinstance(spec, str):
        name = spec
        key: Any = ("str", spec)
    elif isinstance(spec, Mapping) and isinstance(spec.get("model"), str):
        name = spec["model"]
        try:
            key = ("map", json.dumps(spec, sort_keys=True, allow_nan=False))  # plain JSON values only
        except (TypeError, ValueError):
            return None
    else:
        return None
    if name.strip().partition(":")[0] in _NOT_REUSED:
        return None
    return key


def _factory(provider: str, *, shown: str | None = None) -> Any:
    """The entry point's object for ``provider`` (a :class:`Model` subclass)."""
    from ._install import adapter_install_command

    eps = _entry_points()
    ep = eps.get(provider)
    if ep is None:
        if KNOWN_PROVIDERS.get(provider):
            extra = KNOWN_PROVIDERS[provider]
            raise AdapterNotInstalled(
                f"provider {provider!r} needs its adapter toolwire-{extra}: {adapter_install_command(extra)}"
            )
        names = sorted(set(eps) | set(KNOWN_PROVIDERS))
        where = f" in {shown!r}" if shown else ""
        guess = _closest_provider(provider, names)
        hint = ""
        whole = shown.strip() if shown else ""
        owners = _providers_of_model_id(whole) if whole and not guess else []
        if guess:
            rest = whole.partition(":")[2]
            suggestion = f"{guess}:{rest}" if rest else guess
            hint = f" did you mean {suggestion!r}?"
        elif owners:  # a model id with a colon of its own ('gpt-5:latest', 'ft:gpt-4o:org::id'), given bare
            named = [repr(f"{p}:{whole}") for p in owners]
            also = f" (or {' or '.join(named[1:])})" if len(named) > 1 else ""
            hint = f" {whole!r} looks like a model id without its provider: did you mean {named[0]}{also}?"
        shown_where = where if len(where) <= 120 else where[:100] + "...'"
        raise ProviderNotFound(
            f"unknown provider {provider[:60]!r}{shown_where};{hint} known providers: {', '.join(names)}"
        )
    loaded_key = (provider, ep.value)
    hit = _LOADED.get(loaded_key)
    if hit is not None:
        return hit
    try:
        loaded = ep.load()
    except ImportError as exc:
        extra = KNOWN_PROVIDERS.get(provider) or provider
        raise AdapterNotInstalled(
            f"provider {provider!r} is registered but its adapter failed to import ({exc}); "
            f"reinstall it: {adapter_install_command(extra)}"
        ) from exc
    _LOADED[loaded_key] = loaded
    return loaded


def codec(provider: str, **settings: Any) -> Any:
    """The codec of ``provider`` (``"anthropic"``, ``"openai"``, ``"openai-chat"``, ``"gemini"``),
    configured with ``settings``; no model id or credentials needed. Raises like :func:`model`."""
    return _factory(provider).make_codec(**settings)


def profile(provider: str, **settings: Any) -> Any:
    """The :class:`~toolwire.profile.Profile` of ``provider`` (its vendor rules, token estimate,
    live count, recording hints) for ``settings`` (e.g. ``strict=True``, Gemini's schema mode,
    ``model=...``), through the adapter's ``Model.make_profile``; no credentials needed. Raises
    like :func:`model` (:class:`ProviderNotFound`, :class:`AdapterNotInstalled`)."""
    return _factory(provider).make_profile(**settings)


_PROFILES: dict[str, Any] = {}


def cached_profile(provider: str) -> Any:
    """The default-settings profile of ``provider``, built once; ``None`` when no installed adapter
    registers it (the core then falls back to toolwire's own common rules)."""
    if provider in _PROFILES:
        return _PROFILES[provider]
    try:
        prof = profile(provider)
    except ProviderNotFound:
        prof = None
    _PROFILES[provider] = prof
    return prof


def installed_profiles() -> dict[str, Any]:
    """``{provider: profile}`` for every installed adapter that has one (the offline ``test`` and
    ``scripted`` providers included; their profiles state no rule). Adapters that fail to load
    are left out."""
    out: dict[str, Any] = {}
    for name in available_providers():
        try:
            prof = cached_profile(name)
        except Exception:
            prof = None
        if prof is not None:
            out[name] = prof
    return out
