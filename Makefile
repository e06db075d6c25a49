# costmodel: `make plan` runs the planner on the default example; `make test` builds and runs every test.
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all deps build plan test bench install clean format

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# The planner's default example: GPT-3 175B on 1,024 A100-80GB, 8 x HDR 200G per node.
plan: build
	$(BUILD)/bin/costmodel plan --model gpt3-175b --gpu a100-80gb --gpus 1024 --gpus-per-node 8 \
	  --link ib-hdr-200g --nics-per-node 8 --global-batch 1536 --tokens 300e9 --top 10

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCOSTMODEL_BUILD_BENCHMARKS=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS) --target bench_all
	@for b in $(BUILD)/tests/bench/*_bench; do echo "== $$b"; $$b --benchmark_min_time=0.2 || exit 1; done

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD)
