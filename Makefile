# The front door: meson + ninja do the work. Every target that builds first
# makes sure the Debian packages are there (scripts/deps.sh).
PREFIX ?= /usr/local
BUILD ?= build
ASAN_BUILD ?= build-asan
MESON_OPTS ?=

.PHONY: all deps build demo check check-fast fuzz bench install lint format clean

all: build

deps:
	@sh scripts/deps.sh

$(BUILD)/build.ninja:
	@sh scripts/deps.sh
	meson setup $(BUILD) --prefix=$(PREFIX) $(MESON_OPTS)

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(ASAN_BUILD)/build.ninja:
	@sh scripts/deps.sh
	meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug $(MESON_OPTS)

# The main job: two versions of a small program, profiled and compared.
demo: build
	sh scripts/demo.sh $(BUILD)

# All tests, in the normal build and again under ASan+UBSan.
check: deps
	sh scripts/check.sh $(BUILD) $(ASAN_BUILD)

# The normal build's tests only.
check-fast: build
	meson test -C $(BUILD) --print-errorlogs

# The fuzz targets (tests/fuzz) under libFuzzer, FUZZ_TIME seconds each
# (default 60); FUZZ_TARGET=NAME runs one.
FUZZ_BUILD ?= build-fuzz
fuzz: deps
	sh scripts/fuzz.sh $(FUZZ_BUILD)

bench: build
	sh bench/run.sh $(BUILD)

install: build
	meson configure $(BUILD) --prefix=$(PREFIX)
	meson install -C $(BUILD) $(if $(DESTDIR),--destdir $(DESTDIR))

lint: deps
	sh scripts/lint.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) build-tsan
