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

.PHONY: all deps deps-cli build plan test check-long check-browser tsan fuzz-short format format-check tidy tidy-check docs docs-check golden fuzz \
  bench install clean python python-install bench-sweep api-reference

all: build

deps:
	@./scripts/install-deps.sh

# What the CLI alone needs (make plan): no Python packages.
deps-cli:
	@COSTMODEL_WITH_PYTHON=0 ./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# The planner's default example: GPT-3 175B on 1,024 A100-80GB, 8 x HDR 200G per node. Builds the CLI only.
plan: deps-cli $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target costmodel_cli
	$(BUILD)/bin/costmodel plan --model gpt3-175b --gpu a100-80gb --gpus 1024 --gpus-per-node 8 \
	  --link ib-hdr-200g --nics-per-node 8 --global-batch 1536 --tokens 300e9 --top 10

# Everything make test checks, in order: the format of every tracked C++ file; one AddressSanitizer + UBSan
# build with warnings as errors (library, CLI, tools, doctest suites, benchmarks compiled); clang-tidy; the
# docs against their commands (with the sanitized CLI); then ctest (unit, CLI, golden, schema, docs and
# package tests). CI runs make check-long after it.
TEST_BUILD ?= build-test
SANITIZE ?= address,undefined
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# -O1: what the AddressSanitizer documentation recommends for sanitized builds ("use -O1 or higher" for
# reasonable performance), and about half the compile time of -O3 on CI's two cores.
# The library compiles as unity sources (COSTMODEL_UNITY) and the doctest suites link into one executable;
# clang-tidy checks the library and the CLI through those unity sources (each header parsed and matched once
# per batch, not once per file) and the tools and examples file by file.
TEST_CONFIGURE = cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DCOSTMODEL_WERROR=ON -DCOSTMODEL_SANITIZE=$(SANITIZE) -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
	  -DCOSTMODEL_UNITY=ON $(CMAKE_FLAGS)
test: deps format-check
	$(TEST_CONFIGURE)
	cmake --build $(TEST_BUILD) -j$(JOBS)
	$(MAKE) --no-print-directory tidy-check BUILD=$(TEST_BUILD) \
	  TIDY_SOURCES="$$(echo $(TEST_BUILD)/libcostmodel/CMakeFiles/costmodel.dir/Unity/*.cxx \
	    $(TEST_BUILD)/apps/costmodel/CMakeFiles/costmodel_cli_core.dir/Unity/*.cxx) $(TIDY_OTHER_SOURCES)"
	$(SANITIZER_ENV) $(MAKE) --no-print-directory docs-check BUILD=$(TEST_BUILD)
	cd $(TEST_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j$(JOBS)

# The checks too long for make test's budget, which CI runs right after it (.ci/run): ThreadSanitizer over the
# planner's threaded tests, every libFuzzer harness over its seeds for FUZZ_SHORT_RUNS inputs, and the HTML
# report in a real browser.
check-long: tsan fuzz-short check-browser

# The HTML report (costmodel report) opened by Debian's chromium, headless and offline, driven by npm's
# playwright-core (tests/browser/report_test.mjs: no console error, no request, the first table row equal to
# plan --format json's, sorting, every section, printing to PDF). It uses make test's CLI (built here when
# missing) and keeps the page, a full-page screenshot and the PDF in BROWSER_OUT for CI.
BROWSER_OUT ?= $(TEST_BUILD)/artifacts
REPORT_FLAGS ?= --model llama3-70b --gpu h100-sxm --gpus 4096 --seq-len 8192 --global-batch 2048 --tokens 15T
check-browser:
	@COSTMODEL_WITH_BROWSER=1 ./scripts/install-deps.sh
	@node -e 'if (+process.versions.node.split(".")[0] < 20) { console.error("costmodel: make check-browser \
	  needs Node.js 20 or newer (playwright-core 1.64), not " + process.version); process.exit(1); }'
	@test -f $(TEST_BUILD)/CMakeCache.txt || $(TEST_CONFIGURE)
	cmake --build $(TEST_BUILD) -j$(JOBS) --target costmodel_cli
	cd tests/browser && npm ci --no-audit --no-fund --loglevel=error
	mkdir -p $(BROWSER_OUT)
	$(SANITIZER_ENV) $(TEST_BUILD)/bin/costmodel report $(REPORT_FLAGS) -o $(BROWSER_OUT)/report.html
	$(SANITIZER_ENV) $(TEST_BUILD)/bin/costmodel plan $(REPORT_FLAGS) --format json -o $(BROWSER_OUT)/plan.json
	node tests/browser/report_test.mjs $(BROWSER_OUT)/report.html $(BROWSER_OUT)/plan.json $(BROWSER_OUT)

# ThreadSanitizer (GCC's, libtsan2 comes with g++): the library and the threaded planner suite only, without
# its brute-force checks, which run on the test's thread alone (COSTMODEL_TEST_THREAD_SANITIZER: 145 s -> 20 s).
TSAN_BUILD ?= build-tsan
TSAN_UNITS ?= planner_test
tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DCOSTMODEL_SANITIZE=thread -DCOSTMODEL_UNITY=ON -DCOSTMODEL_TEST_UNITS="$(TSAN_UNITS)" \
	  -DCOSTMODEL_BUILD_APPS=OFF -DCOSTMODEL_BUILD_TOOLS=OFF -DCOSTMODEL_BUILD_BENCHMARKS=OFF \
	  -DCOSTMODEL_BUILD_EXAMPLES=OFF -DCOSTMODEL_INSTALL=OFF $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j$(JOBS) --target costmodel_tests
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --output-on-failure -LE package

# A fixed seed and a fixed number of inputs per harness, so that the same tree fuzzes the same inputs on any
# machine (a time budget would try more on a faster one): what CI runs cannot differ from what was run here.
# 10,000 per harness (6 harnesses, about 38 s): 20,000 took 76 s of a CI run that had only 16 s left of its
# 20 minutes (2026-12-07); `make fuzz` runs each for FUZZ_SECONDS.
FUZZ_SHORT_RUNS ?= 10000
fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZ_LIMIT="-runs=$(FUZZ_SHORT_RUNS) -seed=1"

# clang-format (Debian's clang-format package; .clang-format at the top) over every tracked *.cpp and *.hpp.
CXX_SOURCES = $(shell git ls-files '*.cpp' '*.hpp')
format: deps
	$(CLANG_FORMAT) -i $(CXX_SOURCES)

format-check: deps
	@$(CLANG_FORMAT) --dry-run -Werror $(CXX_SOURCES)
	@echo "format-check: $(words $(CXX_SOURCES)) files formatted as .clang-format says"

# clang-tidy (.clang-tidy: bugprone, performance and a modernize subset, warnings as errors) over the library,
# the CLI, the tools and the examples, with the compile commands of $(BUILD); `make test` runs it.
TIDY_OTHER_SOURCES = $(shell git ls-files apps/costmodel/main.cpp 'tools/*.cpp' 'examples/*.cpp' 'python/*.cpp')
TIDY_SOURCES = $(shell git ls-files 'libcostmodel/src/*.cpp' 'apps/costmodel/cli/*.cpp' 'apps/costmodel/commands/*.cpp') $(TIDY_OTHER_SOURCES)
tidy: deps
	cmake -S . -B $(BUILD) -DCMAKE_EXPORT_COMPILE_COMMANDS=ON $(CMAKE_FLAGS) > /dev/null
	$(MAKE) --no-print-directory tidy-check

tidy-check:
	@echo $(TIDY_SOURCES) | xargs -n1 -P$(JOBS) $(CLANG_TIDY) -p $(BUILD) --quiet --extra-arg=-Wno-unknown-warning-option 2>/dev/null \
	  || { echo "tidy: clang-tidy found problems (above)"; exit 1; }
	@echo "tidy: $(words $(TIDY_SOURCES)) translation units clean under .clang-tidy"

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
# Release (-O3): tried at -O1 (libFuzzer's documented flags), a unity source compiled in 5.5 s instead of 6.7 s
# but fuzz-short's 6 x 20,000 inputs ran in 108 s instead of 76 s.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_LIMIT ?= -max_total_time=$(FUZZ_SECONDS)
fuzz:
	COSTMODEL_WITH_CLANG=1 ./scripts/install-deps.sh
	CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DCOSTMODEL_BUILD_FUZZERS=ON -DCOSTMODEL_UNITY=ON \
	  -DCOSTMODEL_BUILD_TESTS=OFF -DCOSTMODEL_BUILD_BENCHMARKS=OFF -DCOSTMODEL_BUILD_APPS=OFF \
	  -DCOSTMODEL_BUILD_TOOLS=OFF -DCOSTMODEL_INSTALL=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@set -e; for f in $(FUZZ_BUILD)/tests/fuzz/fuzz_*; do \
	  name=$$(basename $$f); mkdir -p $(FUZZ_BUILD)/corpus/$$name; \
	  echo "== $$name ($(FUZZ_LIMIT))"; \
	  $$f $(FUZZ_LIMIT) -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus/$$name tests/fuzz/corpus/$$name; \
	done

bench: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCOSTMODEL_BUILD_BENCHMARKS=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS) --target bench_all
	@for b in $(BUILD)/tests/bench/*_bench; do echo "== $$b"; $$b --benchmark_min_time=0.2 || exit 1; done

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Python module (python/, issue 29) with Debian's interpreter: `make python` builds it into
# $(BUILD)/python (use it with PYTHONPATH=$(BUILD)/python /usr/bin/python3); `make python-install` installs
# it with pip into the virtual environment $(VENV) (created with --system-site-packages, so that Debian's
# pandas, dask and distributed serve it), reusing $(BUILD)'s compiled module.
PYTHON ?= /usr/bin/python3
VENV ?= .venv
python: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target costmodel_python
	@echo "costmodel: the module is in $(BUILD)/python: PYTHONPATH=$(BUILD)/python $(PYTHON) -c 'import costmodel'"

python-install: python
	test -x $(VENV)/bin/python3 || $(PYTHON) -m venv --system-site-packages $(VENV)
	COSTMODEL_BUILD_DIR=$(abspath $(BUILD)) $(VENV)/bin/pip install --no-build-isolation --no-deps --quiet .
	@echo "costmodel: installed in $(VENV): $(VENV)/bin/python3 -c 'import costmodel'"

# The API reference of the public headers (docs/Doxyfile) with Debian's doxygen, into $(BUILD)/api-reference.
api-reference:
	@command -v doxygen >/dev/null || { echo "costmodel: make api-reference needs doxygen (apt-get install doxygen)"; exit 1; }
	mkdir -p $(BUILD)/api-reference
	COSTMODEL_API_OUT=$(abspath $(BUILD))/api-reference \
	  COSTMODEL_VERSION=$$(sed -n 's/^#define COSTMODEL_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' \
	    libcostmodel/include/costmodel/version.hpp | paste -sd.) doxygen docs/Doxyfile
	@echo "costmodel: API reference in $(BUILD)/api-reference/html/index.html"

# The sweep benchmark (python/bench/sweep_bench.py): scenarios per second in one process and per worker
# of a 2-worker LocalCluster on the same grid, rows compared.
SWEEP_SCENARIOS ?= 10000
bench-sweep: python
	PYTHONPATH=$(BUILD)/python $(PYTHON) python/bench/sweep_bench.py --scenarios $(SWEEP_SCENARIOS)

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(FUZZ_BUILD) build/python-wheel
