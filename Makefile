# SPDX-License-Identifier: Apache-2.0
# costmodel: `make plan` runs the planner on the default example; `make test` checks everything CI checks
# (.ci/run is exactly `make test`).
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
PREFIX ?= /usr/local
CMAKE_FLAGS ?=
CLANG_FORMAT ?= clang-format
CLANG_TIDY ?= clang-tidy

.PHONY: all deps build plan test format format-check tidy tidy-check docs docs-check golden fuzz bench install clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# The planner's default example: GPT-3 175B on 1,024 A100-80GB, 8 x HDR 200G per node. Builds the CLI only.
plan: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target costmodel_cli
	$(BUILD)/bin/costmodel plan --model gpt3-175b --gpu a100-80gb --gpus 1024 --gpus-per-node 8 \
	  --link ib-hdr-200g --nics-per-node 8 --global-batch 1536 --tokens 300e9 --top 10

# Everything CI checks, in order: the format of every tracked C++ file; one AddressSanitizer + UBSan build
# with warnings as errors (library, CLI, tools, doctest suites, benchmarks compiled); the docs against their
# commands (with the sanitized CLI); then ctest (unit, CLI, golden, schema, docs and package tests).
TEST_BUILD ?= build-test
SANITIZE ?= address,undefined
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# -O1: what the AddressSanitizer documentation recommends for sanitized builds ("use -O1 or higher" for
# reasonable performance), and about half the compile time of -O3 on CI's two cores.
# The library compiles as unity sources (COSTMODEL_UNITY) and the doctest suites link into one executable;
# clang-tidy reads the compile commands of a second, configure-only tree without unity sources
# ($(TEST_BUILD)/tidy), since it checks each source file as itself.
TEST_CONFIGURE = -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCOSTMODEL_WERROR=ON \
  -DCOSTMODEL_SANITIZE=$(SANITIZE) -DCMAKE_EXPORT_COMPILE_COMMANDS=ON $(CMAKE_FLAGS)
test: deps format-check
	cmake -S . -B $(TEST_BUILD) $(TEST_CONFIGURE) -DCOSTMODEL_UNITY=ON
	cmake --build $(TEST_BUILD) -j$(JOBS)
	cmake -S . -B $(TEST_BUILD)/tidy $(TEST_CONFIGURE) -DCOSTMODEL_UNITY=OFF > /dev/null
	$(MAKE) --no-print-directory tidy-check TIDY_DB=$(TEST_BUILD)/tidy
	$(SANITIZER_ENV) $(MAKE) --no-print-directory docs-check BUILD=$(TEST_BUILD)
	cd $(TEST_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j$(JOBS)

# clang-format (Debian's clang-format package; .clang-format at the top) over every tracked *.cpp and *.hpp.
CXX_SOURCES = $(shell git ls-files '*.cpp' '*.hpp')
format: deps
	$(CLANG_FORMAT) -i $(CXX_SOURCES)

format-check: deps
	@$(CLANG_FORMAT) --dry-run -Werror $(CXX_SOURCES)
	@echo "format-check: $(words $(CXX_SOURCES)) files formatted as .clang-format says"

# clang-tidy (.clang-tidy: bugprone, performance and a modernize subset, warnings as errors) over the library,
# the CLI, the tools and the examples, with the compile commands of $(BUILD); `make test` runs it.
TIDY_SOURCES = $(shell git ls-files 'libcostmodel/src/*.cpp' 'apps/*.cpp' 'tools/*.cpp' 'examples/*.cpp')
tidy: deps
	cmake -S . -B $(BUILD) -DCMAKE_EXPORT_COMPILE_COMMANDS=ON $(CMAKE_FLAGS) > /dev/null
	$(MAKE) --no-print-directory tidy-check

TIDY_DB ?= $(BUILD)
tidy-check:
	@echo $(TIDY_SOURCES) | xargs -n4 -P$(JOBS) $(CLANG_TIDY) -p $(TIDY_DB) --quiet --extra-arg=-Wno-unknown-warning-option 2>/dev/null \
	  || { echo "tidy: clang-tidy found problems (above)"; exit 1; }
	@echo "tidy: $(words $(TIDY_SOURCES)) files clean under .clang-tidy"

# Every CLI output and plot in README.md and docs/*.md, regenerated from the commands in their
# `<!-- costmodel-docs: ... -->` markers (syntax: docs/README.md, tools/docs/costmodel_docs.cpp), with the
# CLI of $(BUILD). `make docs BENCH=1` also reruns the benchmarks of the README's timing blocks.
# `make docs-check` regenerates into a temporary copy and fails with a diff on any difference (wall-clock
# timings masked); `make test` runs it.
DOCS = README.md $(wildcard docs/*.md)
DOCS_TOOL = $(BUILD)/bin/costmodel-docs --bin $(BUILD)/bin
docs: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target costmodel_cli costmodel_docs $(if $(BENCH),bench_all)
	$(DOCS_TOOL) $(if $(BENCH),--bench --bin $(BUILD)/tests/bench) $(DOCS)

docs-check: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target costmodel_cli costmodel_docs
	$(DOCS_TOOL) --check $(DOCS)

# Rewrites tests/golden/ from the current binary (after a deliberate change of the model or an output); read
# `git diff tests/golden` before committing.
golden: build
	cd $(BUILD) && COSTMODEL_UPDATE_GOLDEN=1 ctest -R cli_golden_test --output-on-failure

# libFuzzer over every parser for FUZZ_SECONDS each (clang, Debian's libclang-rt-14-dev), seeds in
# tests/fuzz/corpus/<harness>/; new inputs go to build-fuzz/corpus/<harness>/, crashes to build-fuzz/.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz:
	COSTMODEL_WITH_CLANG=1 ./scripts/install-deps.sh
	CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DCOSTMODEL_BUILD_FUZZERS=ON \
	  -DCOSTMODEL_BUILD_TESTS=OFF -DCOSTMODEL_BUILD_BENCHMARKS=OFF -DCOSTMODEL_BUILD_APPS=OFF \
	  -DCOSTMODEL_BUILD_TOOLS=OFF -DCOSTMODEL_INSTALL=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@set -e; for f in $(FUZZ_BUILD)/tests/fuzz/fuzz_*; do \
	  name=$$(basename $$f); mkdir -p $(FUZZ_BUILD)/corpus/$$name; \
	  echo "== $$name ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus/$$name tests/fuzz/corpus/$$name; \
	done

bench: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCOSTMODEL_BUILD_BENCHMARKS=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS) --target bench_all
	@for b in $(BUILD)/tests/bench/*_bench; do echo "== $$b"; $$b --benchmark_min_time=0.2 || exit 1; done

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(FUZZ_BUILD)
