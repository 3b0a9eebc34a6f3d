#!/usr/bin/env python3
"""Prints, one per line, the search-path and target flags SwiftPM gave swiftc for one module.

Usage: docs-module-flags.py MODULE .build/debug.yaml

swift-symbolgraph-extract loads the built module and must find the same C modules (module
maps of NIO, SQLite, Atomics…) for the same target and SDK as the compiler did, so
Scripts/docs.sh passes it the `-I`, `-Xcc`, `-module-cache-path`, `-target` and `-sdk` flags of
the module's compile command in SwiftPM's build description.

Written against the build description of SwiftPM's native build system (the default) as
SwiftPM writes it on Linux; on macOS the same file also carries `-sdk` and the deployment
`-target`, which are passed on, but only the Linux side is exercised (Scripts/test.sh runs
Scripts/docs.sh on Linux only).
"""
import json
import sys

module, description = sys.argv[1], sys.argv[2]
text = open(description, encoding="utf-8").read()
start = text.find('"C.%s-' % module)
if start < 0:
    sys.exit("docs-module-flags: no compile command for module %s in %s" % (module, description))
args_at = text.find("args: ", start)
args = json.loads(text[args_at + len("args: "):text.find("\n", args_at)])
flags = []
index = 0
while index < len(args):
    if args[index] in ("-I", "-Xcc", "-module-cache-path", "-target", "-sdk") and index + 1 < len(args):
        flags += args[index:index + 2]
        index += 2
    else:
        index += 1
print("\n".join(flags))
