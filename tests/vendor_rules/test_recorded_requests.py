"""Every request body in the shared recordings (accepted by the live vendor APIs) passes the
independent validator (issue 10, item 8a). Skips cleanly when ``../shared`` is absent."""

from __future__ import annotations

import pytest

from toolwire.testing.cassettes import load_cassette, recordings_dir
from vendor_rules.validator import validate

ROOT = recordings_dir()
FILES = sorted(ROOT.glob("*/*.yaml")) if ROOT else []


def _requests():
    for path in FILES:
        for it in load_cassette(path):
            if it.api and it.request_json is not None:
                yield pytest.param(it.api, it.request_json, id=f"{path.parent.name}/{path.name}#{it.index}")


PARAMS = list(_requests())


@pytest.mark.skipif(ROOT is None, reason="../shared/recordings is absent")
@pytest.mark.parametrize(
    "api,body", PARAMS or [pytest.param(None, None, marks=pytest.mark.skip(reason="no recordings"))]
)
def test_recorded_request_is_valid(api, body):
    assert [str(v) for v in validate(api, body)] == []


@pytest.mark.skipif(ROOT is None, reason="../shared/recordings is absent")
def test_recordings_cover_every_api():
    assert {p.values[0] for p in PARAMS} == {"anthropic", "openai-chat", "openai", "gemini"}
    assert len(PARAMS) >= 100
