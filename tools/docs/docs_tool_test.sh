#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Tests of costmodel-docs (CTest: docs_tool). Fast: at most a few runs of one `costmodel plan`.
#  1. A copy of README.md passes `--check` on its first generated block, still passes with a timing in
#     that block changed, and fails, with a diff showing the line, once a digit in it is doctored.
#  2. The marker forms on a small synthetic document: a block inserted where none was, head/tail cuts,
#     raw Markdown up to the end marker, nocmd, stderr, exit=N, markers inside a code block left alone,
#     `write` for files, a failing command and a bad option (exit status 2).
# usage: docs_tool_test.sh SOURCE_DIR DOCS_TOOL BIN_DIR WORK_DIR
set -eu
source_dir=$1 tool=$2 bin_dir=$3 work=$4

fail() {
  echo "docs_tool_test: FAILED: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work/tree"
tree=$work/tree
# The source tree but for README.md: every other top-level entry linked.
for entry in "$source_dir"/* "$source_dir"/.[!.]*; do
  [ -e "$entry" ] || continue
  name=$(basename "$entry")
  [ "$name" = README.md ] || ln -s "$entry" "$tree/$name"
done
cp "$source_dir/README.md" "$tree/README.md"
check() { "$tool" --root "$tree" --bin "$bin_dir" --check --blocks 1 README.md >"$work/out.txt" 2>&1; }

# 1. The README's first generated block.
check || { cat "$work/out.txt"; fail "the README's first generated block differs from its command"; }

# The first generated block: the lines of its output (not the fences, not the "$ command" lines).
output_lines=$(awk '
  !started && /^<!-- costmodel-docs: run/ { started = 1; next }
  started == 1 && /^(```|~~~)/ { started = 2; next }
  started == 2 && /^(```|~~~)/ { exit }
  started == 2 && /^\$ / { in_command = 1 }
  started == 2 && in_command { if ($0 !~ /\\$/) in_command = 0; next }
  started == 2 { print NR }
' "$tree/README.md")
[ -n "$output_lines" ] || fail "no generated block in README.md"
# The line to doctor: the first with a decimal number (a result of the model), else the first with a digit.
line="" digit_line="" timing=""
for n in $output_lines; do
  text=$(sed -n "${n}p" "$tree/README.md")
  case $text in
  *" in "[0-9]*" s"*) [ -n "$timing" ] || timing=$n ;;
  *[0-9].[0-9]*) [ -n "$line" ] || line=$n ;;
  *[0-9]*) [ -n "$digit_line" ] || digit_line=$n ;;
  esac
done
[ -n "$line" ] || line=$digit_line
[ -n "$line" ] || fail "no line with a digit in the README's first generated block"

if [ -n "$timing" ]; then
  sed -i "${timing}s/ in [0-9.]* s/ in 9.876 s/" "$tree/README.md"
  check || { cat "$work/out.txt"; fail "a changed wall-clock timing was not masked"; }
fi

original=$(sed -n "${line}p" "$tree/README.md")
# One digit changed (the first after a decimal point, else the first): 0-8 up by one, 9 to 0.
sed -i "${line}{s/\\([0-9]\\.\\)\\([0-9]\\)/\\1<\\2>/;t doctor;s/[0-9]/<&>/;:doctor;s/<9>/0/;s/<8>/9/;s/<7>/8/;s/<6>/7/;s/<5>/6/;s/<4>/5/;s/<3>/4/;s/<2>/3/;s/<1>/2/;s/<0>/1/}" \
  "$tree/README.md"
doctored=$(sed -n "${line}p" "$tree/README.md")
[ "$original" != "$doctored" ] || fail "could not doctor line $line"
if check; then
  fail "--check passed on a README whose line $line was doctored to: $doctored"
fi
status=0
check || status=$?
[ "$status" -eq 1 ] || { cat "$work/out.txt"; fail "--check exited $status on a doctored README (expected 1)"; }
grep -qF -- "-$doctored" "$work/out.txt" || { cat "$work/out.txt"; fail "the diff does not show the doctored line"; }
grep -qF -- "+$original" "$work/out.txt" || { cat "$work/out.txt"; fail "the diff does not show the generated line"; }
echo "docs_tool_test: README.md:$line doctored to '$doctored' fails --check with a diff; a changed timing passes"

# 2. The marker forms on a synthetic document.
synthetic=$work/synthetic
mkdir -p "$synthetic/docs"
cat >"$synthetic/doc.md" <<'EOF'
# title
<!-- costmodel-docs: run printf 'a\nb\nc\nd\ne\n' -->

<!-- costmodel-docs: run:head=1,tail=2 printf 'a\nb\nc\nd\ne\n' -->
```sh
stale
```
<!-- costmodel-docs: run:raw,nocmd printf '| x |\n| --- |\n| 1 |\n' -->
stale
<!-- costmodel-docs: end -->
<!-- costmodel-docs: run:stderr,exit=3 printf 'to stdout\n';
  printf 'to stderr\n' >&2; exit 3 -->
```
```
````md
<!-- costmodel-docs: run echo shown as an example, never run -->
```
```
````
<!-- costmodel-docs: write printf 'plot\n' > docs/plot.txt -->
EOF
cat >"$synthetic/expected.md" <<'EOF'
# title
<!-- costmodel-docs: run printf 'a\nb\nc\nd\ne\n' -->
```text
$ printf 'a\nb\nc\nd\ne\n'
a
b
c
d
e
```

<!-- costmodel-docs: run:head=1,tail=2 printf 'a\nb\nc\nd\ne\n' -->
```sh
$ printf 'a\nb\nc\nd\ne\n'
a
...
d
e
```
<!-- costmodel-docs: run:raw,nocmd printf '| x |\n| --- |\n| 1 |\n' -->
| x |
| --- |
| 1 |

<!-- costmodel-docs: end -->
<!-- costmodel-docs: run:stderr,exit=3 printf 'to stdout\n';
  printf 'to stderr\n' >&2; exit 3 -->
```
$ printf 'to stdout\n';
  printf 'to stderr\n' >&2; exit 3
to stdout
to stderr
```
````md
<!-- costmodel-docs: run echo shown as an example, never run -->
```
```
````
<!-- costmodel-docs: write printf 'plot\n' > docs/plot.txt -->
EOF
"$tool" --root "$synthetic" doc.md >"$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "the synthetic document"; }
diff -u "$synthetic/expected.md" "$synthetic/doc.md" || fail "the synthetic document is not as expected"
[ "$(cat "$synthetic/docs/plot.txt")" = plot ] || fail "the write marker did not write docs/plot.txt"
"$tool" --root "$synthetic" --check doc.md >"$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "--check after make docs"; }

# JSON timings are masked too, and only timings: "within 1 s" is not one.
printf '%s\n' "<!-- costmodel-docs: run printf '{\"elapsed_s\": %s} within %s s\\n' 0.25 1 -->" >"$synthetic/json.md"
"$tool" --root "$synthetic" json.md >"$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "json.md"; }
grep -qx '{"elapsed_s": 0.25} within 1 s' "$synthetic/json.md" || { cat "$synthetic/json.md"; fail "json.md output"; }
sed -i 's/^{"elapsed_s": 0.25}/{"elapsed_s": 7e-3}/' "$synthetic/json.md"
"$tool" --root "$synthetic" --check json.md >"$work/out.txt" 2>&1 || { cat "$work/out.txt"; fail "elapsed_s not masked"; }
sed -i 's/} within 1 s$/} within 2 s/' "$synthetic/json.md"
if "$tool" --root "$synthetic" --check json.md >"$work/out.txt" 2>&1; then fail "'within 1 s' was masked"; fi

printf '<!-- costmodel-docs: run false -->\n' >"$synthetic/bad.md"
status=0
"$tool" --root "$synthetic" bad.md >"$work/out.txt" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a failing command exited $status (expected 2)"
grep -q "bad.md:1: error: the command exited with 1" "$work/out.txt" || { cat "$work/out.txt"; fail "message"; }
printf '<!-- costmodel-docs: run:haed=2 true -->\n' >"$synthetic/bad.md"
status=0
"$tool" --root "$synthetic" bad.md >"$work/out.txt" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a bad option exited $status (expected 2)"
grep -q "bad.md:1: error: unknown option 'haed=2'" "$work/out.txt" || { cat "$work/out.txt"; fail "message"; }
echo "docs_tool_test: the marker forms work on a synthetic document"
rm -rf "$work"
