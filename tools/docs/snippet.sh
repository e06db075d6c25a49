#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Prints the lines of FILE between `// [NAME]` and `// [/NAME]` (docs/api.md pastes the sections of
# examples/api/walkthrough.cpp, which the test suite compiles and runs, with this).
# Usage: tools/docs/snippet.sh NAME FILE
set -eu
name=$1
file=$2
awk -v first="// [$name]" -v last="// [/$name]" '$0 == last {inside = 0} inside {print} $0 == first {inside = 1}' "$file"
