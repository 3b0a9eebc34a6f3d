#!/usr/bin/env python3
"""Validates SelfDB spec files against Docs/selfdb-spec.schema.json.

Usage: python3 Scripts/check-spec-schema.py [FILE...]

Without arguments it checks Spec/*.yaml and Tests/GeneratedCodeTests/*.yaml. It prints one
`path:line:col: error: message` line per problem and exits 1 when there is any, so the
editor schema stays in step with the specs the generator accepts. The schema checks shape
only; `selfdb-codegen validate` remains the authority.

It needs the `jsonschema` and `yaml` (PyYAML, with libyaml) modules; without them it prints
a notice and exits 0, so a machine that lacks them does not fail.
"""

import glob
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as error:
    print(f"check-spec-schema: skipped, a Python module is missing ({error.name}); "
          "install python3-jsonschema and python3-yaml to run it")
    sys.exit(0)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "Docs", "selfdb-spec.schema.json")
DEFAULT_PATTERNS = ["Spec/*.yaml", "Tests/GeneratedCodeTests/*.yaml"]


if not getattr(yaml, "CSafeLoader", None):
    # PyYAML's pure-Python parser stops plain scalars at '?' inside flow mappings, so it
    # cannot read `{ type: String?, ... }`; libyaml (which the generator also uses) can.
    print("check-spec-schema: skipped, PyYAML was built without libyaml (yaml.CSafeLoader)")
    sys.exit(0)


class SpecLoader(yaml.CSafeLoader):
    """Reads YAML the way the spec loader does: only `true`/`false` are booleans (not
    YAML 1.1's yes/no/on/off), dates stay text, keys are text, duplicate keys are errors."""


SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}
SpecLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))


def construct_mapping(loader, node, deep=False):
    # No merge keys (`<<:`), as in the generator: such a key stays a (rejected) key.
    result = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise yaml.constructor.ConstructorError(None, None, "mapping keys must be plain names", key_node.start_mark)
        key = key_node.value
        if key in result:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


SpecLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)


def node_at(root, path):
    """The YAML node at a JSON path, and the key node of its last step (for better places)."""
    node, key_node = root, None
    for step in path:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if match is None:
                break
            key_node, node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            key_node, node = None, node.value[step]
        else:
            break
    return node, key_node


def describe(error):
    """A readable message for a schema error, the path of the node it is about, and whether
    to point at that node's key (an unknown or misspelt key) rather than its value."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        extra = [key for key in error.instance if key not in known]
        if extra:
            allowed = ", ".join(sorted(known))
            return f"unknown key '{extra[0]}' (allowed: {allowed})", path + [extra[0]], True
    if error.validator == "oneOf":
        titles = [branch.get("title", "") for branch in error.validator_value]
        if "struct" in titles:
            return "a model needs exactly one of 'fields' (struct), 'enum' or 'alias'; 'wire' and 'conforms' are for structs", path, True
        if "method + path" in titles:
            return "an endpoint needs exactly one of 'get:', 'post:', 'put:', 'patch:', 'delete:', 'head:' with its path, or 'method:' and 'path:'", path, True
        if error.context:
            # Report the branch written (a mapping's own errors, not "is not a string"):
            # drop the branches that fail on the kind of the value itself.
            branches = {}
            for sub in error.context:
                branches.setdefault(sub.relative_schema_path[0], []).append(sub)
            wrong_kind = {index for index, subs in branches.items()
                          if any(sub.validator == "type" and list(sub.absolute_path) == path for sub in subs)}
            relevant = [sub for index, subs in branches.items() if index not in wrong_kind for sub in subs]
            best = jsonschema.exceptions.best_match(relevant or list(error.context))
            if best is not None:
                return describe(best)
    if "propertyNames" in error.schema_path:
        return f"invalid key: {error.message}", path + [error.instance], True
    return error.message, path, False


def check(file, validator):
    shown = os.path.relpath(file, os.getcwd()) if os.path.isabs(file) else file
    try:
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
        data = yaml.load(text, Loader=SpecLoader)
        tree = yaml.compose(text, Loader=SpecLoader)
    except (OSError, UnicodeDecodeError) as error:
        return [f"{shown}:1:1: error: cannot read the file: {error}"]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = getattr(error, "problem", None) or str(error)
        return [f"{shown}:{line}:{column}: error: invalid YAML: {problem}"]
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        message, path, at_key = describe(error)
        node, key_node = node_at(tree, path)
        mark = key_node if at_key and key_node is not None else node
        mark = mark.start_mark if mark is not None else None
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        where = ".".join(str(p) for p in path) or "the top level"
        problems.append((line, column, f"{shown}:{line}:{column}: error: {message} (at {where})"))
    return [text for _, _, text in sorted(problems)]


def main(arguments):
    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    if arguments:
        files = arguments
    else:
        files = sorted(f for pattern in DEFAULT_PATTERNS for f in glob.glob(os.path.join(ROOT, pattern)))
    if not files:
        print("check-spec-schema: no spec files found")
        return 1
    failed = 0
    for file in files:
        problems = check(file, validator)
        for problem in problems:
            print(problem, file=sys.stderr)
        failed += bool(problems)
    if failed:
        print(f"check-spec-schema: {failed} of {len(files)} spec files do not match {os.path.relpath(SCHEMA, ROOT)}", file=sys.stderr)
        return 1
    print(f"check-spec-schema: {len(files)} spec files match {os.path.relpath(SCHEMA, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
