from toolwire.schema.alternatives import offered_alternatives


def test_alternatives_become_optional_properties_with_every_definition() -> None:
    alts = [
        {"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
        {"properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind", "y"]},
        "not a schema",
    ]
    props, required = offered_alternatives({"id": {"type": "string"}}, alts[:2])
    assert props == {
        "id": {"type": "string"},
        "kind": {"anyOf": [{"const": "a"}, {"const": "b"}]},
        "x": {"type": "integer"},
        "y": {"type": "string"},
    }
    assert required == ["kind"]
    # an alternative that is not a schema requires nothing, so nothing is required of all
    assert offered_alternatives({}, alts)[1] == []
    # the root's own definition wins
    assert offered_alternatives({"kind": {"type": "string"}}, alts[:2])[0]["kind"] == {"type": "string"}
