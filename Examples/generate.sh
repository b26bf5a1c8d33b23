#!/usr/bin/env bash
# Regenerates Sources/DemoAPI (the demo API's client) from openapi.yaml with swift-openapi-generator's command-line
# tool. Run it after changing openapi.yaml and commit the result: the generated code is committed so that neither
# CI nor a user builds the generator (minutes) to build the examples.
#
#   Examples/generate.sh [PATH-TO-swift-openapi-generator]
#
# Without an argument it builds the generator (the version Package.swift's swift-openapi-runtime pairs with) in a
# scratch folder first.
set -euo pipefail
cd "$(dirname "$0")"
generator="${1:-}"
if [ -z "$generator" ]; then
  scratch="${TMPDIR:-/tmp}/loupe-openapi-generator"
  if [ ! -d "$scratch/.git" ]; then
    git clone --quiet --branch 1.14.3 https://github.com/apple/swift-openapi-generator "$scratch"
  fi
  (cd "$scratch" && swift build -c release --product swift-openapi-generator)
  generator="$scratch/.build/release/swift-openapi-generator"
fi
"$generator" generate openapi.yaml --config openapi-generator-config.yaml --output-directory Sources/DemoAPI
echo "generate.sh: Sources/DemoAPI regenerated from openapi.yaml"
