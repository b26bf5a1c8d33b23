#!/usr/bin/env bash
# What an app compiles when it links: LoupeLink's targets, closed over their dependencies, hold no TOML parser
# (the link carries rules as JSON; only LoupeRulesFile, the TUI and the CLI read TOML); one that records, or exports
# live over OTLP, compiles none of the readers (LoupeQuery). Reads Package.swift through
# `swift package describe`, so it checks the manifest as SwiftPM sees it, not as text.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package describe --type json 2>/dev/null | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
def closure(name):
    seen, todo, products = set(), [name], set()
    while todo:
        t = targets[todo.pop()]
        if t["name"] in seen: continue
        seen.add(t["name"])
        todo += t.get("target_dependencies", [])
        products |= set(t.get("product_dependencies", []))
    return seen, products
failed = False
for app, banned in [("LoupeLink", {"TOMLKit", "LoupeConfig", "LoupeRulesFile"}), ("LoupeTrace", {"TOMLKit", "LoupeQuery", "LoupeRules"}),
                     ("LoupeOTLP", {"TOMLKit", "LoupeQuery"})]:
    modules, products = closure(app)
    print(f"{app}: " + " ".join(sorted(modules - {app})) + " | " + " ".join(sorted(products)))
    bad = banned & (modules | products)
    if bad:
        print(f"check-module-graph: {app} compiles {sorted(bad)}"); failed = True
sys.exit(1 if failed else 0)
'
echo "check-module-graph: ok"
