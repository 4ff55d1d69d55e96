"""Check an encoded request body against its API's vendor rules, for tests.

The rules live in each adapter's profile (:class:`toolwire.profile.Profile`); this module only
asks it through the registry, so an installed third-party adapter is checked the same way.

- ``validate_request(api, body) -> list[str]``: the violations the API's profile finds in
  ``body`` (one sentence each: the rule id, the JSON pointer, what is wrong and what to do);
  empty when the body is valid.
- ``RULES``: a read-only mapping ``api -> [rule summary with its source, ...]`` over the
  installed providers, for listings.

``api`` is a provider name (``"anthropic"``, ``"openai"``, ``"openai-chat"``, ``"gemini"``, or
any installed adapter's); the old label ``"openai-responses"`` means ``"openai"``. Raises
:class:`~toolwire.errors.ProviderNotFound` for an unknown provider and
:class:`~toolwire.errors.AdapterNotInstalled` when its adapter is missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["validate_request", "RULES"]

#: Provider labels found in old saved data and recordings folders.
_OLD_LABELS = {"openai-responses": "openai"}


def _profile(api: str) -> Any:
    from .. import registry

    return registry.profile(_OLD_LABELS.get(api, api))


def validate_request(api: str, body: dict[str, Any]) -> list[str]:
    """The problems ``api``'s profile finds in the encoded request ``body`` (``[]`` when it is
    valid): ``Profile.check_request(body)``, each violation as its one-line text."""
    return [str(v) for v in _profile(api).check_request(body)]


class _Rules(Mapping[str, list[str]]):
    """``api -> ["<rule id>: <summary> (source: ...)", ...]`` for every installed provider whose
    profile states rules; read from the profiles when accessed."""

    def _apis(self) -> list[str]:
        from .. import registry

        out = []
        for name in registry.available_providers():
            try:
                if _profile(name).rules:
                    out.append(name)
            except Exception:  # an adapter that fails to load states no rules here
                continue
        return out

    def __getitem__(self, api: str) -> list[str]:
        try:
            rules = _profile(api).rules
        except LookupError:
            raise KeyError(api) from None
        if not rules:
            raise KeyError(api)  # listed only when its profile states rules
        return [f"{r.id}: {r.summary} (source: {r.source})" for r in rules.values()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._apis())

    def __len__(self) -> int:
        return len(self._apis())


RULES: Mapping[str, list[str]] = _Rules()
