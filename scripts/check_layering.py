#!/usr/bin/env python3
"""Checks that each layer of the compiler includes only its own and lower layers' headers.

The layers, bottom first (docs/pipeline.md, "Layers"): target/ (the target description),
frontend/, ir/, backend/, driver/. A file under one of them that includes "X/..." where X
is a higher layer is reported as `path:line: error: ...`; the exit status is then 1.
Directories that are not layers (stdlib/, fuzz/, test/, ...) are neither checked nor
restricted. Usage: check_layering.py SOURCE_ROOT
"""
import os
import re
import sys

LAYERS = ["target", "frontend", "ir", "backend", "driver"]
SOURCE_SUFFIXES = (".cpp", ".h", ".def", ".inc", ".l", ".y")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([A-Za-z0-9_]+)/')


def violations(root):
    """Yields (path, line number, layer, included layer) for each upward include under root."""
    for rank, layer in enumerate(LAYERS):
        top = os.path.join(root, layer)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1) in LAYERS and LAYERS.index(m.group(1)) > rank:
                            yield os.path.relpath(path, root), number, layer, m.group(1)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.stderr.write("usage: check_layering.py SOURCE_ROOT\n")
        return 2
    found = 0
    for path, number, layer, included in violations(sys.argv[1]):
        allowed = " ".join(l + "/" for l in LAYERS[: LAYERS.index(layer) + 1])
        print(f'{path}:{number}: error: {layer}/ includes "{included}/...", '
              f"a higher layer; {layer}/ may include only {allowed}")
        found += 1
    if found:
        print(f"{found} upward include(s)")
        return 1
    print("layering ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
