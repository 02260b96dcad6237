#!/usr/bin/env python3
"""Checks JSON documents against a JSON Schema (the subset `llmsys schema
--json` writes: type, const, enum, properties, required,
additionalProperties (false or a schema), items, oneOf).

    check-report-schema.py SCHEMA DOCUMENT...

Prints "DOCUMENT: ok", or each place that breaks the schema and "FAILED".
"""
import json
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def problems(schema, value, where):
    if "oneOf" in schema:
        matches = [s for s in schema["oneOf"] if not problems(s, value, where)]
        if len(matches) != 1:
            # Say why against the branch the value names, if it names one.
            kind = value.get("kind") if isinstance(value, dict) else None
            for s in schema["oneOf"]:
                if s.get("properties", {}).get("kind", {}).get("const") == kind:
                    return problems(s, value, where) or [
                        f"{where}: matches {len(matches)} of oneOf"]
            return [f"{where}: matches {len(matches)} of oneOf"]
        return []
    if "const" in schema and value != schema["const"]:
        return [f"{where}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r} is not one of {schema['enum']}"]
    if "type" in schema:
        types = schema["type"]
        types = types if isinstance(types, list) else [types]
        if not any(TYPES[t](value) for t in types):
            return [f"{where}: {value!r} is not {' or '.join(types)}"]
    out = []
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{where}: lacks {key}")
        for key, v in value.items():
            if key in props:
                out += problems(props[key], v, f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{where}: {key} is not in the schema")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += problems(schema["additionalProperties"], v,
                                f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += problems(schema["items"], v, f"{where}[{i}]")
    return out


schema = json.load(open(sys.argv[1]))
failed = False
for path in sys.argv[2:]:
    found = problems(schema, json.load(open(path)), "$")
    for p in found[:20]:
        print(f"{path}: {p}")
    print(f"{path}: {'FAILED' if found else 'ok'}")
    failed |= bool(found)
sys.exit(1 if failed else 0)
