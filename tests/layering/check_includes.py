#!/usr/bin/env python3
"""Every project include in engine/ names its layer folder ("core/body.h"), never a path relative to the
including file ("body.h", "../core/body.h"). A relative include is looked up next to the source file
first, so it would bypass the per-layer include paths that keep the layering (engine/CMakeLists.txt)."""
import pathlib
import re
import sys

engine = pathlib.Path(sys.argv[1])
layers = {p.name for p in engine.iterdir() if p.is_dir()}
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
bad = []
for source in sorted(engine.rglob("*")):
    if source.suffix not in (".h", ".cpp"):
        continue
    for number, line in enumerate(source.read_text().splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        path = m.group(1)
        if ".." in path.split("/") or path.split("/")[0] not in layers:
            bad.append(f"{source.relative_to(engine.parent)}:{number}: #include \"{path}\" "
                       f"must start with a layer folder ({', '.join(sorted(layers))})")
print("\n".join(bad) if bad else f"every include in {engine} names its layer")
sys.exit(1 if bad else 0)
