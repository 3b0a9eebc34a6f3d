#!/usr/bin/env python3
"""Keeps Docs/SpecLanguage.md honest: every ```yaml block is run through
`selfdb-codegen validate`. A yaml block directly followed by a ```text block must produce
exactly that text (as `api.yaml`); any other yaml block must validate cleanly.

Usage: check-doc-examples.py PATH-TO-selfdb-codegen [--update]
--update rewrites the text blocks with the current output (review the diff!)."""
import os
import re
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
doc_path = os.path.join(root, "Docs", "SpecLanguage.md")
tool = sys.argv[1]
update = "--update" in sys.argv[2:]
text = open(doc_path, encoding="utf-8").read()
block = re.compile(r"```yaml\n(.*?)```\n(\n```text\n(.*?)```\n)?", re.S)
failures = 0
checked = 0
pieces = []
last = 0
with tempfile.TemporaryDirectory() as work:
    for match in block.finditer(text):
        yaml_text, expected = match.group(1), match.group(3)
        with open(os.path.join(work, "api.yaml"), "w", encoding="utf-8") as handle:
            handle.write(yaml_text)
        result = subprocess.run([tool, "validate", "api.yaml"], cwd=work, capture_output=True, text=True)
        actual = result.stderr
        checked += 1
        line = text.count("\n", 0, match.start()) + 1
        if expected is None:
            if result.returncode != 0 or actual:
                failures += 1
                print(f"Docs/SpecLanguage.md:{line}: example should be valid but gives:\n{actual}")
        elif actual != expected:
            if update:
                pieces.append(text[last:match.start(3)] + actual)
                last = match.end(3)
                continue
            failures += 1
            print(f"Docs/SpecLanguage.md:{line}: example output differs.\n--- documented\n{expected}--- actual\n{actual}")
if update and pieces:
    with open(doc_path, "w", encoding="utf-8") as handle:
        handle.write("".join(pieces) + text[last:])
    print("updated the documented outputs")
print(f"check-doc-examples: {checked} examples, {failures} failing")
sys.exit(1 if failures else 0)
